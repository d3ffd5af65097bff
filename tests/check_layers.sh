#!/bin/bash
# check_layers.sh [ROOT [BUILDDIR]]: the dependency rule and the banned
# functions (docs/architecture.md, the house rules), over ROOT/src (default:
# the repository) and, given a meson build directory of ROOT, over what was
# built there. Fails, naming file:line, when
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
#   - a build file of src/ names Net-SNMP, or (given BUILDDIR) a program of
#     src/ has it on its link line (only tools/snmp's subagent links it);
#   - a banned function (strcpy, sprintf, strtok, atoi, gets) is called
#     anywhere in src/ (comments and string literals are ignored);
# and when a library or program of src/ links a layer it must not. A
# target's layer is the directory under src/ of the meson.build defining it
# (fabric/* is "fabric"); the config's file side, utconfigcore, is a layer of
# its own, "config core". Each layer links only (LINK_OK below):
#   lib          nothing else of the project
#   scsi         lib
#   backstore    scsi, lib
#   fabric       scsi, lib
#   config core  lib (the CLI links it)
#   config       config core, fabric, scsi, backstore, lib
#   rpc          config, config core, fabric, scsi, backstore, lib
#   daemon       everything but cli
#   cli          config core, lib (the daemon only through its socket)
# The link graph is read twice:
#   - from the build files: the link_with:, link_whole: and dependencies: of
#     every static_library(), executable() and declare_dependency() of
#     ROOT/src/**/meson.build (a name or a list of names: any other
#     expression, or a name that no meson.build of the tree defines, is an
#     error, so the check cannot pass by not understanding a build file);
#   - with BUILDDIR, from what meson built: the archives on the link line of
#     each program of src/ (BUILDDIR/build.ninja) and the symbols each static
#     library of src/ takes from another one (nm), which finds a call across
#     layers that no build file declares. The targets and their directories
#     come from BUILDDIR/meson-info/intro-targets.json (what `meson
#     introspect --targets` prints). meson test runs it with the build dir.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
build=${2:-}
[ -d "$root/src" ] || { echo "check_layers: no $root/src"; exit 1; }
if [ -n "$build" ] && [ ! -f "$build/meson-info/intro-targets.json" ]; then
	echo "check_layers: $build is not a meson build directory (no meson-info/intro-targets.json)"
	exit 1
fi

exec python3 - "$root" "$build" <<'PY'
import json, os, re, subprocess, sys

root = sys.argv[1]
build = sys.argv[2]
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
    # utarget/backstore.h (include/): the public handler ABI, which the
    # plugin adapter (backstore/plugin.c) translates to scsi/bs.h
    if "/" not in inc or inc.startswith("lib/") or inc.startswith("backstore/") \
            or inc == "scsi/bs.h" or inc == "utarget/backstore.h":
        return None
    return "src/backstore includes only lib/, scsi/bs.h and utarget/backstore.h"
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

# ---- the link graph ----
CONFIG_CORE_TARGETS = {"utconfigcore"}  # the config's file side: a layer of its own
ALL_LAYERS = {"lib", "scsi", "backstore", "fabric", "config core", "config", "rpc", "daemon",
              "cli"}
LINK_OK = {
    "lib": {"lib"},
    "scsi": {"scsi", "lib"},
    "backstore": {"backstore", "scsi", "lib"},
    "fabric": {"fabric", "scsi", "lib"},
    "config core": {"config core", "lib"},
    "config": {"config", "config core", "fabric", "scsi", "backstore", "lib"},
    "rpc": {"rpc", "config", "config core", "fabric", "scsi", "backstore", "lib"},
    "daemon": ALL_LAYERS - {"cli"},
    "cli": {"cli", "config core", "lib"},
}
LINK_WHY = {
    "lib": "lib links nothing else of the project",
    "scsi": "the core links only lib (the fabrics and back-stores plug into it)",
    "backstore": "a back-store links only lib and the core (its contract, scsi/bs.h)",
    "fabric": "a fabric links only lib and the core",
    "config core": "the config's file side (utconfigcore) links only lib: the CLI links it",
    "config": "the config links nothing above it (rpc, cli, daemon)",
    "rpc": "rpc links nothing of the CLI or the daemon",
    "daemon": "the daemon links nothing of the CLI",
    "cli": "the CLI links only lib, the config's file side and its own code (the daemon "
           "only through its socket)",
}
# What a layer may link it may link through another: the rule is closed, so
# checking every direct link checks the whole graph.
for _a, _oks in LINK_OK.items():
    for _b in _oks:
        assert LINK_OK[_b] <= _oks, (_a, _b)


def layer_of(rel_dir, target_name):
    """Layer of a target defined in rel_dir (relative to the source root),
    None outside src/."""
    parts = rel_dir.split(os.sep)
    if parts[0] != "src" or len(parts) < 2:
        return None
    return "config core" if target_name in CONFIG_CORE_TARGETS else parts[1]


def link_error(where, what, layer, other, other_layer, verb="links"):
    global errors
    for name, lay in ((what, layer), (other, other_layer)):
        if lay not in LINK_OK:
            print(f"{where}: {name}: no link rule for layer \"{lay}\" (add it to LINK_OK in "
                  f"tests/check_layers.sh and to docs/architecture.md)")
            errors += 1
            return
    if other_layer not in LINK_OK[layer]:
        print(f"{where}: {what} ({layer}) {verb} {other} ({other_layer}): {LINK_WHY[layer]}")
        errors += 1


# -- from the build files --
TARGET_FUNCS = {"static_library", "library", "shared_library", "both_libraries", "executable",
                "shared_module"}
LINK_KWARGS = ("link_with", "link_whole", "dependencies")
tok_re = re.compile(r"('''.*?'''|'(?:[^'\\\n]|\\.)*'|#[^\n]*|[A-Za-z_]\w*|\d+|\S)", re.S)
ident_re = re.compile(r"[A-Za-z_]\w*$")


def meson_tokens(text):
    """(token, line) pairs, comments dropped, strings kept whole."""
    out = []
    for m in tok_re.finditer(text):
        if not m.group(1).startswith("#"):
            out.append((m.group(1), text.count("\n", 0, m.start()) + 1))
    return out


def closing(toks, i):
    """Index of the bracket that closes the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][0] in ("(", "["):
            depth += 1
        elif toks[j][0] in (")", "]"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def split_args(toks):
    """The arguments of a call (its tokens between the parentheses)."""
    args, cur, depth = [], [], 0
    for t in toks:
        if t[0] in ("(", "["):
            depth += 1
        elif t[0] in (")", "]"):
            depth -= 1
        if t[0] == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        args.append(cur)
    return args


def names(value):
    """a -> ["a"]; [a, b] -> ["a", "b"]; None for any other expression."""
    v = [t[0] for t in value]
    if len(v) == 1 and ident_re.match(v[0]):
        return v
    if len(v) >= 2 and v[0] == "[" and v[-1] == "]":
        inner = v[1:-1]
        if inner and inner[-1] == ",":
            inner = inner[:-1]
        if all(ident_re.match(x) for x in inner[0::2]) and all(x == "," for x in inner[1::2]) \
                and len(inner) % 2 == 1:
            return inner[0::2]
        if not inner:
            return []
    return None


# name -> node. Kinds: "target" (a library or program), "dep"
# (declare_dependency), "external" (dependency()), "list" (a list of names).
# Meson variables are global over subdir()s; a later assignment wins.
nodes = {}
meson_files = [os.path.join(root, "meson.build")]
for dirpath, dirs, files in os.walk(src):
    dirs.sort()
    if "meson.build" in files:
        meson_files.append(os.path.join(dirpath, "meson.build"))
for path in meson_files:
    if not os.path.isfile(path):
        continue
    rel = os.path.relpath(path, root)
    rel_dir = os.path.dirname(rel)
    toks = meson_tokens(open(path, encoding="utf-8", errors="replace").read())
    for i, (t, line) in enumerate(toks):
        var = toks[i - 2][0] if i >= 2 and toks[i - 1][0] == "=" and \
            ident_re.match(toks[i - 2][0]) else None
        if t == "[" and var:
            inner = names(toks[i:closing(toks, i) + 1])
            if inner is not None:
                nodes[var] = {"kind": "list", "name": var, "edges": inner}
            continue
        if t == "[" and i >= 3 and toks[i - 1][0] == "=" and toks[i - 2][0] == "+" and \
                toks[i - 3][0] in nodes and nodes[toks[i - 3][0]]["kind"] == "list":
            inner = names(toks[i:closing(toks, i) + 1])  # x += [...] of a list of names
            if inner is None:
                print(f"{rel}:{line}: {toks[i - 3][0]} +=: check_layers reads a list of names "
                      f"here, nothing else")
                errors += 1
            else:
                nodes[toks[i - 3][0]]["edges"] += inner
            continue
        if i + 1 >= len(toks) or toks[i + 1][0] != "(":
            continue
        if t == "dependency":
            if var:
                nodes[var] = {"kind": "external", "name": var}
            continue
        if t not in TARGET_FUNCS and t != "declare_dependency":
            continue
        edges, link_with, tname = [], [], None
        for k, a in enumerate(split_args(toks[i + 2:closing(toks, i + 1)])):
            if len(a) >= 2 and a[1][0] == ":" and a[0][0] in LINK_KWARGS:
                n = names(a[2:])
                if n is None:
                    print(f"{rel}:{a[0][1]}: {a[0][0]}: check_layers reads a name or a list "
                          f"of names here, nothing else")
                    errors += 1
                    continue
                edges += n
                if a[0][0] != "dependencies":
                    link_with += n
            elif k == 0 and len(a) == 1 and a[0][0].startswith("'"):
                tname = a[0][0].strip("'")
        where = f"{rel}:{line}"
        if t == "declare_dependency":
            node = {"kind": "dep", "name": var or f"declare_dependency()", "edges": edges,
                    "link_with": link_with, "dir": rel_dir, "where": where}
        else:
            node = {"kind": "target", "name": var or f"{t}('{tname}')",
                    "layer": layer_of(rel_dir, tname), "edges": edges, "where": where}
        nodes[var or where] = node


def node_layer(n):
    """A target's layer; a dependency's is that of the first library it links
    (the one it declares), else its directory's."""
    if n["kind"] == "target":
        return n["layer"]
    for w in n["link_with"]:
        if w in nodes and nodes[w]["kind"] == "target":
            return nodes[w]["layer"]
    return layer_of(n["dir"], None)


def brought(name, seen=frozenset()):
    """(name, layer) of what linking name brings directly: itself, or a
    list's members; [] for an external dependency; None if unknown."""
    n = nodes.get(name)
    if n is None:
        return None
    if n["kind"] == "external" or name in seen:
        return []
    if n["kind"] == "list":
        out = []
        for e in n["edges"]:
            r = brought(e, seen | {name})
            if r is None:
                return None
            out += r
        return out
    return [(n["name"], node_layer(n))]


for n in list(nodes.values()):
    if n["kind"] not in ("target", "dep") or not n["where"].startswith("src" + os.sep):
        continue
    for e in n["edges"]:
        got = brought(e)
        if got is None:
            print(f"{n['where']}: {n['name']} links {e}, which no meson.build of the tree "
                  f"defines (check_layers cannot place it)")
            errors += 1
            continue
        for other, other_layer in got:
            if other != n["name"] and other_layer is not None:
                link_error(n["where"], n["name"], node_layer(n), other, other_layer)


# -- from the build directory --
def build_targets():
    """real path of each output of a target defined in src/ -> the target."""
    info = json.load(open(os.path.join(build, "meson-info", "meson-info.json")))
    srcdir = info.get("directories", {}).get("source", root)
    out = {}
    for t in json.load(open(os.path.join(build, "meson-info", "intro-targets.json"))):
        layer = layer_of(os.path.dirname(os.path.relpath(t["defined_in"], srcdir)), t["name"])
        if layer is None:
            continue
        for f in t["filename"]:
            out[os.path.realpath(f)] = {"name": t["name"], "type": t["type"], "layer": layer,
                                        "file": os.path.relpath(f, build)}
    return out


def nm(args, path):
    """The external symbols of an archive nm lists with args."""
    try:
        r = subprocess.run(["nm", "-g", "-P"] + args + [path], capture_output=True, text=True)
    except OSError as e:
        sys.exit(f"check_layers: nm: {e}")
    if r.returncode:
        sys.exit(f"check_layers: nm {path}: {r.stderr.strip()}")
    return {f[0] for f in (line.split() for line in r.stdout.splitlines())
            if len(f) >= 2 and len(f[1]) == 1 and not f[0].endswith(":")}


if build:
    targets = build_targets()
    # programs: the archives meson put on their link line
    for line in open(os.path.join(build, "build.ninja"), encoding="utf-8", errors="replace"):
        m = re.match(r"build (\S+): (\w+_LINKER) (.*)", line)
        if not m or m.group(2) == "STATIC_LINKER":
            continue
        t = targets.get(os.path.realpath(os.path.join(build, m.group(1))))
        if not t:
            continue
        parts = m.group(3).split(" || ")[0].split(" | ")
        for a in (parts[1].split() if len(parts) > 1 else []):
            lib = targets.get(os.path.realpath(os.path.join(build, a)))
            if lib and lib is not t:
                link_error(os.path.join(build, "build.ninja"), t["name"], t["layer"],
                           lib["file"], lib["layer"], "is linked with")
    # static libraries: the symbols each one uses from another one
    libs = [t for t in targets.values() if t["type"] == "static library"]
    defined = {}
    for t in libs:
        for sym in nm(["--defined-only"], os.path.join(build, t["file"])):
            defined.setdefault(sym, []).append(t)
    for t in libs:
        done = set()
        for sym in sorted(nm(["-u"], os.path.join(build, t["file"]))):
            for d in defined.get(sym, []):
                if d is not t and d["file"] not in done:
                    done.add(d["file"])
                    link_error(os.path.join(build, t["file"]), t["name"], t["layer"],
                               d["file"], d["layer"], f"uses {sym} of")

# Net-SNMP stays out of src/: the SNMP subagent is a program of its own
# (tools/snmp, utarget-agentx), and no library or program of src/ names
# Net-SNMP in its build file or has it on its link line.
for dirpath, _dirs, files in os.walk(src):
    if "meson.build" in files:
        path = os.path.join(dirpath, "meson.build")
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            if re.search(r"netsnmp|net-snmp", line.split("#", 1)[0], re.I):
                print(f"{os.path.relpath(path, root)}:{n}: src/ links nothing of Net-SNMP "
                      "(the subagent, tools/snmp, is a program of its own)")
                errors += 1
if build:
    current = None
    for line in open(os.path.join(build, "build.ninja"), encoding="utf-8", errors="replace"):
        m = re.match(r"build (\S+): (\w+_LINKER) ", line)
        if m:
            current = targets.get(os.path.realpath(os.path.join(build, m.group(1))))
            continue
        if line.startswith("build "):
            current = None
        elif current and line.startswith(" LINK_ARGS =") and re.search(r"netsnmp", line):
            print(f"{os.path.join(build, 'build.ninja')}: {current['name']} ({current['layer']}) "
                  "is linked with Net-SNMP: only tools/snmp's utarget-agentx may be")
            errors += 1

if errors:
    print(f"check_layers: {errors} violation(s)")
    sys.exit(1)
print("check_layers: no layering violation, no banned function, no link across layers ("
      + ("build files and " + build if build else "build files") + ")")
PY
