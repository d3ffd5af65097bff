# utarget front door. `make run` and `make test` are the two commands of the README.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
MESON_OPTS ?=

RELEASE_OPTS = --buildtype=debugoptimized --werror

.PHONY: all deps deps-run deps-test deps-vm build asan run test unit bench fuzz fuzz-build soak \
	vm-test format clean

all: build

# scripts/deps.sh holds the package lists: `run` (build and run the daemon,
# the README's clients) for `make run`, `vm` (run + QEMU and the guest's
# tools) for `make vm-test`, `test` (run + test, fuzz and benchmark tools) for
# everything else.
deps: deps-test

deps-run:
	@./scripts/deps.sh run

deps-test:
	@./scripts/deps.sh test

deps-vm:
	@./scripts/deps.sh vm

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(RELEASE_OPTS) $(MESON_OPTS)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debug --werror -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=undefined $(MESON_OPTS)

# Everything, the unit tests and test clients included (a build dir that
# `make run` set up without them gets them back).
build: deps-test $(BUILD)/build.ninja
	@if meson introspect --buildoptions $(BUILD) | grep -q '"name": "tests", "value": false'; \
	then meson configure $(BUILD) -Dtests=true; fi
	ninja -C $(BUILD)

asan: deps-test $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# Build and start utargetd in the foreground with the demo config:
# iqn.2026-12.org.utarget:default, LUN 0 = 1 GiB thin file, 127.0.0.1:3260,
# all its files under state/ (scripts/run-demo.sh). Only the run list is
# installed: a build dir set up here has no unit tests (-Dtests=false, no
# cmocka needed).
run: deps-run
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(RELEASE_OPTS) -Dtests=false $(MESON_OPTS)
	ninja -C $(BUILD)
	./scripts/run-demo.sh $(BUILD)

# Every test (unit, golden, conformance profiles, qemu-img, fuzz corpus replay,
# ...) on the ASan+UBSan build, plus the libFuzzer smoke runs (clang build of
# the harnesses only); the last line is "N passed, N failed".
test: asan build fuzz-build
	./tests/run-all.sh $(ASAN_BUILD) $(BUILD) $(FUZZ_BUILD)

unit: asan
	meson test -C $(ASAN_BUILD) --suite unit --print-errorlogs

# utargetd vs tgtd side by side on loopback (see bench/README.md).
bench: build
	./bench/run.sh $(BUILD)
	./bench/idle_sessions.sh $(BUILD)

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) --buildtype=debugoptimized --werror -Dfuzzing=true \
		-Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

# The libFuzzer binaries only (tests/fuzz/README.md).
fuzz-build: deps-test $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) $$(cd tests/fuzz && ls fuzz_*.c | grep -v fuzz_env | \
		sed 's,^,tests/fuzz/,; s,\.c$$,,')

# libiscsi's conformance suite SOAK_ROUNDS times (default 20) against one
# ASan+UBSan utargetd: 0 failures and 0 sanitizer reports (tests/hardening/soak.sh).
soak: asan
	./tests/hardening/soak.sh $(ASAN_BUILD)/src/daemon/utargetd $${SOAK_ROUNDS:-20}

# The Linux kernel's iSCSI initiator against utargetd, in a QEMU guest under
# TCG (tests/vm/: the guest's kernel is downloaded as a Debian package into
# $(BUILD)/vm/cache, not installed). Installs the vm list only; a build dir
# set up here has no unit tests, as with `make run`. Then the sg back-store
# over scsi_debug with the guest as the target, driven from the host by
# libiscsi and the raw initiator of tests/tools (which needs a build with
# the test clients, as `make test` leaves it).
vm-test: deps-vm
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(RELEASE_OPTS) -Dtests=false $(MESON_OPTS)
	ninja -C $(BUILD)
	./tests/vm/linux_initiator.sh $(BUILD)
	./tests/vm/sg_passthrough.sh $(BUILD)

# libFuzzer harnesses for FUZZ_SECONDS each (default 600), FUZZ_JOBS at a time.
fuzz: deps-test
	./tests/fuzz/run.sh $(FUZZ_BUILD) $${FUZZ_SECONDS:-600}

format:
	clang-format -i $$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' 'tools/*.[ch]')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
