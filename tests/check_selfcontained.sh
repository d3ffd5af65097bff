#!/bin/bash
# check_selfcontained.sh [ROOT]: nothing that builds, tests or benchmarks the
# project refers to a path outside the repository, so that `make test` on a
# fresh clone reads nothing but the clone. Scans the tracked files (every
# file when ROOT is not a git work tree; default ROOT: this repository) of
# Makefile, meson_options.txt, every meson.build, scripts/, tests/, bench/
# and .ci/ (not the fuzz corpora, which are inputs, nor this check and its
# self-test, which name the patterns), and fails, naming file:line, on
#   - "../shared" (the sibling folder of the developers' machines);
#   - an absolute path into a user's or the workplace's directories
#     (/work/, /home/, ~/);
#   - a run of ".." that climbs above the repository: more ".." than the
#     file's directory is deep (relative to the file itself, as
#     "$(dirname "$0")/../.." or meson's files('../x') are), or any ".."
#     right after the repository root ($UT_ROOT, $ROOT, $root,
#     meson.project_source_root()).
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root" ] || { echo "check_selfcontained: no $root"; exit 1; }

exec python3 - "$root" <<'PY'
import os, re, subprocess, sys

root = sys.argv[1]
scope = re.compile(r"^(Makefile|meson_options\.txt|scripts/|tests/|bench/|\.ci/)|(^|/)meson\.build$")
skip = re.compile(r"^tests/fuzz/corpus/|^tests/check_selfcontained(_selftest)?\.sh$")

def files():
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-prefix"],
                          capture_output=True, text=True).stdout.strip() == "":
            return [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if x != ".git" and not (rel == "." and
                   (x.startswith("build") or x == "state"))]
        for n in names:
            found.append(os.path.normpath(os.path.join(rel, n)))
    return found

literal = [
    (re.compile(r"\.\./shared\b"), '"../shared" (a folder beside the repository)'),
    (re.compile(r"(?<![\w.-])/(work|home)/"), "an absolute path into /work/ or /home/"),
    (re.compile(r"(?<![\w/.$-])~/"), "a path in a home directory (~/)"),
]
# a run of ".." path segments, and what comes right before it
dots = re.compile(r"(?<![\w.])\.\.(?:/\.\.)*(?![\w.])")
root_vars = re.compile(r"(\$\{?(UT_ROOT|ROOT|root)\}?|project_source_root\(\)\s*/\s*['\"])/?$")

bad = []
paths = sorted(f for f in files() if scope.search(f) and not skip.search(f))
for rel in paths:
    path = os.path.join(root, rel)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        continue
    if b"\0" in data:
        continue
    depth = rel.count("/")
    for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        for rx, why in literal:
            if rx.search(line):
                bad.append(f"{rel}:{no}: {why}: {line.strip()}")
        for m in dots.finditer(line):
            n = m.group(0).count("..")
            before = line[:m.start()]
            if root_vars.search(before):
                why = '".." above the repository root'
            elif n > depth:
                why = f'{n} x ".." from {os.path.dirname(rel) or "the top"} leaves the repository'
            else:
                continue
            bad.append(f"{rel}:{no}: {why}: {line.strip()}")

for b in bad:
    print("check_selfcontained: " + b)
if bad:
    print(f"check_selfcontained: {len(bad)} reference(s) outside the repository")
    sys.exit(1)
print(f"ok: {len(paths)} files (Makefile, meson, scripts/, tests/, bench/, .ci/) refer to "
      "nothing outside the repository")
PY
