#!/bin/bash
# plugin.sh UTARGETD BUILD_ROOT: the back-store plugin ABI as a handler
# author meets it. `meson install --destdir` of this build into a scratch
# root; examples/backstore/exfile.c built out of tree with cc and the
# installed header alone (pkg-config pointed at the installed
# utarget-backstore.pc); the handler takes nothing from the daemon (its only
# undefined symbols are libc's); utargetd serves a LUN through it (qemu-img
# convert and compare, the image file holds the data, READ CAPACITY reports
# the handler's 4096-byte blocks when the config gives no block_size); a
# handler built for another ABI version is refused at start-up with both
# versions named, and the config refuses a handler name with a '/'.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
BUILD=${2:?usage: plugin.sh UTARGETD BUILD_ROOT}
command -v pkg-config >/dev/null || ut_fail "pkg-config not installed"
command -v qemu-img >/dev/null || ut_fail "qemu-img not installed (qemu-utils)"

# 1. install into a scratch root
dest=$UT_TMP/dest
meson install -C "$BUILD" --destdir "$dest" --no-rebuild --quiet >"$UT_TMP/install.log" 2>&1 ||
	{ cat "$UT_TMP/install.log"; ut_fail "meson install failed"; }
pcfile=$(find "$dest" -name utarget-backstore.pc | head -n 1)
[ -n "$pcfile" ] || ut_fail "no utarget-backstore.pc installed"
hdr=$(find "$dest" -path '*/include/utarget/backstore.h' | head -n 1)
[ -n "$hdr" ] || ut_fail "no utarget/backstore.h installed"
echo "ok: installed ${pcfile#"$dest"} and ${hdr#"$dest"}"

# 2. build the example out of tree: a copy of the source, the installed
# header through pkg-config, nothing of the source tree on the include path
export PKG_CONFIG_PATH=$(dirname "$pcfile") PKG_CONFIG_SYSROOT_DIR=$dest
cflags=$(pkg-config --cflags utarget-backstore) || ut_fail "pkg-config --cflags failed"
case $cflags in
*"$dest"*) ;;
*) ut_fail "pkg-config --cflags does not point into the install: $cflags" ;;
esac
mkdir -p "$UT_TMP/ext" "$UT_TMP/plugins" "$UT_TMP/plugins-old"
cp "$UT_ROOT/examples/backstore/exfile.c" "$UT_TMP/ext/"
lines=$(wc -l <"$UT_TMP/ext/exfile.c")
[ "$lines" -le 260 ] || ut_fail "the example has $lines lines (at most ~250)"
(cd "$UT_TMP/ext" && cc -O2 -Wall -Wextra -Werror -shared -fPIC $cflags \
	-o "$UT_TMP/plugins/exfile.so" exfile.c) || ut_fail "the example does not build out of tree"
echo "ok: exfile.so built out of tree with: cc -shared -fPIC $cflags ($lines lines)"
undef=$(nm -D --undefined-only "$UT_TMP/plugins/exfile.so" | awk '{print $2}' | grep -v '@GLIBC_' |
	grep -v '^__gmon_start__$\|^_ITM_\|^__cxa_finalize' || true)
[ -z "$undef" ] || ut_fail "exfile.so needs symbols other than libc's: $undef"
echo "ok: exfile.so takes nothing from the daemon (undefined symbols: libc only)"
# the same handler claiming the next ABI version
sed 's/\.abi_version = UTBS_ABI_VERSION,/.abi_version = UTBS_ABI_VERSION + 1,/' \
	"$UT_TMP/ext/exfile.c" >"$UT_TMP/ext/exfile_next.c"
grep -q 'UTBS_ABI_VERSION + 1' "$UT_TMP/ext/exfile_next.c" || ut_fail "could not make the ABI variant"
(cd "$UT_TMP/ext" && cc -shared -fPIC $cflags -o "$UT_TMP/plugins-old/exfile.so" exfile_next.c) ||
	ut_fail "the ABI variant does not build"

config() { # DIR HANDLER FILE
	ut_write_config "$3" <<JSON
{
  "version": 1,
  "state_dir": "@TMP@",
  "plugin_dir": "$1",
  "backstores": [ { "name": "p0", "type": "plugin", "handler": "$2",
                    "options": { "path": "@TMP@/p0.img", "size": "64M", "block": "4096" } } ],
  "targets": [
    { "name": "$UT_TARGET",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:3260"] } ],
      "luns": [ { "lun": 0, "backstore": "p0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
}

# 3. a LUN through the handler
config "$UT_TMP/plugins" exfile p.json
ut_start "$UT_TMP/p.json"
grep -q "backstore p0: handler exfile (ABI 1)" "$UT_LOG" || ut_fail "no handler line in the log"
url="iscsi://127.0.0.1:$UT_PORT/$UT_TARGET/0"
cap=$(iscsi-readcapacity16 "$url") || ut_fail "READ CAPACITY(16) failed"
echo "$cap" | grep -q 'LOGICAL BLOCK LENGTH IN BYTES:4096' || ut_fail "block length is not 4096: $cap"
echo "$cap" | grep -q 'RETURNED LOGICAL BLOCK ADDRESS:16383' || ut_fail "not 64 MiB of 4096-byte blocks: $cap"
echo "ok: READ CAPACITY(16): 16384 blocks of 4096 bytes (the handler's geometry)"
head -c 64M /dev/urandom >"$UT_TMP/src.raw"
qemu-img convert -n -f raw -O raw "$UT_TMP/src.raw" "$url" || ut_fail "qemu-img convert failed"
qemu-img compare -f raw -F raw "$UT_TMP/src.raw" "$url" || ut_fail "images differ"
ut_stop
cmp "$UT_TMP/src.raw" "$UT_TMP/p0.img" || ut_fail "the handler's image file differs"
echo "ok: 64 MiB written and read back over iSCSI; the image file holds them"

# 4. refused at start-up: exit status 1, the reason in the log
expect_refused() { # CONFIG WANT
	local out rc
	out=$(timeout 60 "$UTARGETD" -f -c "$UT_TMP/$1" --listen "127.0.0.1:$UT_PORT" 2>&1)
	rc=$?
	[ "$rc" = 1 ] || ut_fail "$1: exit status $rc, want 1: $out"
	echo "$out" | grep -qF "$2" || ut_fail "$1: no '$2' in: $out"
	echo "ok: $1 refused: $(echo "$out" | grep -F "$2" | head -n 1 | sed 's/^[^ ]* //')"
}
config "$UT_TMP/plugins-old" exfile abi.json
expect_refused abi.json "is built for back-store ABI version 2, this utargetd has ABI version 1"
config "$UT_TMP/plugins" "../plugins/exfile" name.json
expect_refused name.json "backstores[0].handler: a handler is a file name in plugin_dir"
echo "PASS plugin"
