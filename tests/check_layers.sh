#!/bin/bash
# check_layers.sh [ROOT]: the dependency rule and the banned functions
# (docs/architecture.md, the house rules), over ROOT/src (default: the
# repository). Fails, naming file:line, when
#   - src/lib includes anything above lib (a quoted include with a directory
#     other than lib/);
#   - src/scsi includes fabric/, backstore/, config/, rpc/, cli/, daemon/ or
#     stats/;
#   - src/backstore includes anything but lib/, scsi/bs.h and its own
#     headers;
#   - src/fabric includes backstore/, config/, rpc/, cli/ or daemon/;
#   - src/config includes rpc/, cli/ or daemon/;
#   - a header of src/config includes fabric/, scsi/ or backstore/ (the
#     config's interface, which the CLI and rpc include, shows no other
#     layer; the apply side's .c files include them);
#   - src/rpc includes anything but rpc/, lib/, the config's control headers
#     (config/ctl.h and the ones it includes: change.h, config.h, index.h,
#     model.h) and the public headers of the fabric and the core
#     (fabric/iscsi/iscsi.h, scsi/scsi.h);
#   - src/cli includes anything but cli/, config/ and lib/ (the CLI talks to
#     the daemon only through its socket);
#   - a banned function (strcpy, sprintf, strtok, atoi, gets) is called
#     anywhere in src/ (comments and string literals are ignored).
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/src" ] || { echo "check_layers: no $root/src"; exit 1; }

exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
src = os.path.join(root, "src")
inc_re = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
banned_re = re.compile(r'\b(strcpy|sprintf|strtok|atoi|gets)\s*\(')

# layer (first directory under src/) -> predicate(include path) -> error or None
def rule_lib(inc):
    if "/" in inc and not inc.startswith("lib/"):
        return "src/lib includes nothing above lib"
def rule_scsi(inc):
    for bad in ("fabric/", "backstore/", "config/", "rpc/", "cli/", "daemon/", "stats/"):
        if inc.startswith(bad):
            return "src/scsi includes nothing from " + bad
def rule_backstore(inc):
    if "/" not in inc or inc.startswith("lib/") or inc.startswith("backstore/") \
            or inc == "scsi/bs.h":
        return None
    return "src/backstore includes only lib/ and scsi/bs.h"
def rule_fabric(inc):
    for bad in ("backstore/", "config/", "rpc/", "cli/", "daemon/"):
        if inc.startswith(bad):
            return "src/fabric includes nothing from " + bad
def rule_config(inc):
    for bad in ("rpc/", "cli/", "daemon/"):
        if inc.startswith(bad):
            return "src/config includes nothing from " + bad
def rule_config_header(inc):
    for bad in ("fabric/", "scsi/", "backstore/"):
        if inc.startswith(bad):
            return "a src/config header includes nothing from " + bad + \
                " (the config's interface shows no other layer)"
RPC_OK = ("config/ctl.h", "config/change.h", "config/config.h", "config/index.h",
          "config/model.h", "fabric/iscsi/iscsi.h", "scsi/scsi.h")
def rule_rpc(inc):
    if "/" not in inc or inc.startswith(("rpc/", "lib/")) or inc in RPC_OK:
        return None
    return ("src/rpc includes only rpc/, lib/, config/ctl.h (and the config headers it "
            "includes) and the public fabric/iscsi/iscsi.h and scsi/scsi.h")
def rule_cli(inc):
    if "/" not in inc or inc.startswith(("cli/", "config/", "lib/")):
        return None
    return "src/cli includes only cli/, config/ and lib/ (the daemon only through its socket)"
rules = {"lib": rule_lib, "scsi": rule_scsi, "backstore": rule_backstore,
         "fabric": rule_fabric, "config": rule_config, "rpc": rule_rpc, "cli": rule_cli}

def strip_comments_and_strings(text):
    """Blank out comments and string/char literals, keeping newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j]); i = j
        else:
            out.append(c); i += 1
    return "".join(out)

errors = 0
for dirpath, dirs, files in os.walk(src):
    dirs.sort()
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, root)
        layer = os.path.relpath(path, src).split(os.sep)[0]
        text = open(path, encoding="utf-8", errors="replace").read()
        checks = [rules[layer]] if layer in rules else []
        if layer == "config" and f.endswith(".h"):
            checks.append(rule_config_header)
        for rule in checks:
            for m in inc_re.finditer(text):
                why = rule(m.group(1))
                if why:
                    line = text.count("\n", 0, m.start()) + 1
                    print(f"{rel}:{line}: #include \"{m.group(1)}\": {why}")
                    errors += 1
        code = strip_comments_and_strings(text)
        for m in banned_re.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            print(f"{rel}:{line}: {m.group(1)}() is banned (use snprintf, memcpy with "
                  f"checked lengths, strtoul with end checks)")
            errors += 1

if errors:
    print(f"check_layers: {errors} violation(s)")
    sys.exit(1)
print("check_layers: no layering violation, no banned function")
PY
