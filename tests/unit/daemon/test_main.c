/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/daemon/main.c: option parsing, and the start-up,
 * reload and shutdown sequence with fakes of the reactor pool, the core,
 * the iSCSI fabric (its settings go through cfg_apply_iscsi_settings()),
 * the control plane's build (cfg_ctl_apply) and the control socket (the
 * real config loader and verifier are used). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define main utargetd_main
int utargetd_main(int argc, char **argv);
#include "daemon/main.c"
#undef main

/* ---- fakes: record the sequence of calls ---- */
static char seq[1024];
static int fail_apply, fail_iscsi_init, fail_pool_start;
static struct reactor_fd *sig_handle;
static const struct cfg_iscsi_settings *seen_settings;
static struct cfg_iscsi_settings seen_settings_copy;
static size_t seen_nlisten;
static char seen_listen0[64];
static unsigned seen_threads;
static int signals_to_send[4];

static void rec(const char *what)
{
	size_t n = strlen(seq);

	snprintf(seq + n, sizeof(seq) - n, "%s%s", n ? " " : "", what);
}

/* the fabric's settings go through the config's apply side (the real
 * defaults, cfg_iscsi_defaults(), come from the config core) */
int cfg_apply_iscsi_settings(const struct cfg *c)
{
	rec("iscsi_init");
	seen_settings = &c->iscsi;
	seen_settings_copy = c->iscsi;
	return fail_iscsi_init ? -EADDRINUSE : 0;
}

void iscsi_shutdown(void)
{
	rec("iscsi_shutdown");
}

int scsi_core_init(void)
{
	rec("scsi_core_init");
	return 0;
}

int reactor_pool_start(unsigned n)
{
	rec("pool_start");
	seen_threads = n;
	return fail_pool_start ? -ENOMEM : 0;
}

static int dummy_reactor;

struct reactor *reactor_pool_get(unsigned i)
{
	return i == 0 ? (struct reactor *)&dummy_reactor : NULL;
}

int reactor_fd_add(struct reactor *r, struct reactor_fd *h, int fd, uint32_t events,
		   void (*cb)(struct reactor_fd *h, uint32_t revents))
{
	h->fd = fd;
	h->cb = cb;
	h->r = r;
	sig_handle = h;
	return 0;
}

void reactor_fd_del(struct reactor_fd *h)
{
	h->r = NULL;
	sig_handle = NULL;
}

/* "runs" reactor 0: delivers the queued signals through the signalfd */
int reactor_pool_run(void)
{
	rec("pool_run");
	for (size_t i = 0; i < ARRAY_SIZE(signals_to_send) && signals_to_send[i]; i++) {
		kill(getpid(), signals_to_send[i]);
		assert_non_null(sig_handle);
		sig_handle->cb(sig_handle, REACTOR_IN);
	}
	return 0;
}

void reactor_pool_stop(void)
{
	rec("pool_stop");
}

/* the stop waits, a timer tick at a time, for the dropped connections to
 * be freed: fake_alive ticks, each one recorded as "drain" */
static unsigned fake_alive;

unsigned iscsi_conns_alive(void)
{
	return fake_alive;
}

uint64_t reactor_now_ns(void)
{
	return 1;
}

struct reactor *reactor_self(void)
{
	return NULL;
}

void reactor_timer_init(struct reactor_timer *t, void (*fn)(struct reactor_timer *t))
{
	t->fn = fn;
}

void reactor_timer_arm(struct reactor *r, struct reactor_timer *t, uint64_t delay_ns)
{
	(void)r;
	(void)delay_ns;
	rec("drain");
	fake_alive--;
	t->fn(t);
}

void reactor_pool_join(void)
{
	rec("pool_join");
}

/* the worker pool (lib/workq.h): nothing queued here */
void workq_stop(void)
{
}

/* the control plane (config/ctl.h): the real loader and verifier, a fake
 * build; the control socket (rpc/rpc.h) recorded */
static struct cfg *ctl_tree;
static const struct cfg_ctl_opts *ctl_opts;
static int fail_rpc;
static bool ctl_applied;

int cfg_ctl_load(const struct cfg_ctl_opts *o, struct cfg_err *err)
{
	int rc = cfg_load(o->file, o->defaults, &ctl_tree, err);

	if (rc == 0 && (rc = cfg_check_files(ctl_tree, err))) {
		cfg_free(ctl_tree);
		ctl_tree = NULL;
	}
	ctl_opts = o;
	return rc;
}

const struct cfg *cfg_ctl_tree(void)
{
	return ctl_tree;
}

int cfg_ctl_apply(struct cfg_err *err)
{
	rec("apply");
	seen_nlisten = ctl_opts->nlisten;
	if (ctl_opts->nlisten)
		snprintf(seen_listen0, sizeof(seen_listen0), "%s", ctl_opts->listen[0]);
	if (fail_apply) {
		*err = (struct cfg_err){0};
		snprintf(err->path, sizeof(err->path), "targets[0].portal_groups[0].portals[0]");
		snprintf(err->msg, sizeof(err->msg), "cannot listen on 127.0.0.1:3260: in use");
		cfg_free(ctl_tree);
		ctl_tree = NULL;
		return -EADDRINUSE;
	}
	ctl_applied = true;
	return 0;
}

void cfg_ctl_stop(void)
{
	if (ctl_applied)
		rec("destroy"); /* what was built */
	ctl_applied = false;
	cfg_free(ctl_tree);
	ctl_tree = NULL;
}

void cfg_ctl_summary(char *buf, size_t size)
{
	snprintf(buf, size, "1 target, 1 LUN, portals 127.0.0.1:3260");
}

int cfg_ctl_reload(size_t *n, struct cfg_err *err)
{
	rec("reload");
	*n = 0;
	return 0;
}

static char seen_socket[128];

int rpc_server_start(struct reactor *r, const struct rpc_server_opts *o)
{
	rec("rpc");
	snprintf(seen_socket, sizeof(seen_socket), "%s", o->path);
	return fail_rpc ? -EADDRINUSE : 0;
}

void rpc_server_stop(void)
{
	rec("rpc_stop");
}

/* The /metrics endpoint (daemon/metrics_http.c): off in these configs. */
int utd_metrics_start(struct reactor *r, const char *addr, const char *version)
{
	(void)r;
	(void)addr;
	(void)version;
	rec("metrics");
	return 0;
}

void utd_metrics_stop(void)
{
}

/* ---- helpers ---- */
static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ut-daemon-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void reset(void)
{
	seq[0] = '\0';
	fail_apply = fail_iscsi_init = fail_pool_start = fail_rpc = 0;
	memset(signals_to_send, 0, sizeof(signals_to_send));
	seen_nlisten = 0;
	seen_settings = NULL;
	fake_alive = 0;
}

static const char *write_cfg(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int run(int argc, const char *const *argv)
{
	int rc = utargetd_main(argc, (char **)argv);
	sigset_t all;

	/* main() blocked these for its signalfd */
	sigemptyset(&all);
	sigaddset(&all, SIGINT);
	sigaddset(&all, SIGTERM);
	sigaddset(&all, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	return rc;
}

static const char good_cfg[] =
    "{\"version\": 1, \"log_level\": \"err\", \"iscsi\": {\"queue_depth\": 16},\n"
    " \"backstores\": [{\"name\": \"r\", \"type\": \"ram\", \"size\": \"1M\"}],\n"
    " \"targets\": [{\"name\": \"iqn.2026-12.org.utarget:t\",\n"
    "   \"portal_groups\": [{\"tag\": 1, \"portals\": [\"127.0.0.1:3260\"]}],\n"
    "   \"luns\": [{\"lun\": 0, \"backstore\": \"r\"}]}]}\n";

/* ---- option parsing ---- */
static enum utd_parse_result parse(int argc, const char *const *argv, struct utd_opts *o, char *err,
				   size_t errsize)
{
	FILE *f = fmemopen(err, errsize, "w");
	enum utd_parse_result r;

	assert_non_null(f);
	memset(err, 0, errsize);
	r = utd_parse_args(argc, (char **)argv, o, f);
	fclose(f);
	return r;
}

static void test_options(void **state)
{
	struct utd_opts o;
	char err[256];

	(void)state;
	const char *a0[] = {"utargetd"};
	assert_int_equal(parse(1, a0, &o, err, sizeof(err)), UTD_RUN);
	assert_string_equal(o.config, "/etc/utarget/utarget.json");
	assert_false(o.foreground);
	assert_false(o.check);
	assert_int_equal(o.log_level, -1);
	assert_int_equal(o.nlisten, 0);
	assert_true(o.threads >= 1);

	const char *a1[] = {"utargetd",	      "-f",	  "-c",		"x.json",      "--listen",
			    "127.0.0.1:3400", "--listen", "[::1]:3401", "--log-level", "debug",
			    "--threads",      "3",	  "--check",	"--log-file",  "/tmp/l"};
	assert_int_equal(parse(ARRAY_SIZE(a1), a1, &o, err, sizeof(err)), UTD_RUN);
	assert_true(o.foreground);
	assert_string_equal(o.config, "x.json");
	assert_int_equal(o.nlisten, 2);
	assert_string_equal(o.listen[0], "127.0.0.1:3400");
	assert_string_equal(o.listen[1], "[::1]:3401");
	assert_int_equal(o.log_level, LOG_LVL_DEBUG);
	assert_int_equal(o.threads, 3);
	assert_true(o.check);
	assert_string_equal(o.log_file, "/tmp/l");

	const char *a2[] = {"utargetd", "--config=y.json", "--foreground"};
	assert_int_equal(parse(ARRAY_SIZE(a2), a2, &o, err, sizeof(err)), UTD_RUN);
	assert_string_equal(o.config, "y.json");
	assert_true(o.foreground);
}

static void test_option_errors(void **state)
{
	static const struct {
		const char *argv[4];
		const char *msg;
	} cases[] = {
	    {{"utargetd", "--listen", "localhost:3260"}, "--listen localhost:3260: "},
	    {{"utargetd", "--listen", "127.0.0.1"}, "--listen 127.0.0.1: "},
	    {{"utargetd", "--listen", "[::1]"}, "--listen [::1]: "},
	    {{"utargetd", "--log-level", "loud"}, "--log-level loud: use err"},
	    {{"utargetd", "--threads", "0"}, "--threads 0: a number from 1 to 256"},
	    {{"utargetd", "--threads", "-1"}, "--threads -1: "},
	    {{"utargetd", "--threads", "2x"}, "--threads 2x: "},
	    {{"utargetd", "--threads", "257"}, "--threads 257: "},
	    {{"utargetd", "--bogus"}, "unknown option --bogus"},
	    {{"utargetd", "-c"}, "option -c needs an argument"},
	    {{"utargetd", "--listen"}, "option --listen needs an argument"},
	    {{"utargetd", "extra"}, "unexpected argument extra"},
	};
	struct utd_opts o;
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int argc = 0;
		while (argc < 4 && cases[i].argv[argc])
			argc++;
		assert_int_equal(parse(argc, cases[i].argv, &o, err, sizeof(err)), UTD_EXIT_ERR);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
		assert_true(strncmp(err, "utargetd: ", 10) == 0);
	}
	/* at most UTD_MAX_LISTEN --listen */
	const char *many[3 + 2 * UTD_MAX_LISTEN];
	many[0] = "utargetd";
	int n = 1;
	for (int i = 0; i <= UTD_MAX_LISTEN; i++) {
		many[n++] = "--listen";
		many[n++] = "127.0.0.1:3400";
	}
	assert_int_equal(parse(n, many, &o, err, sizeof(err)), UTD_EXIT_ERR);
	assert_non_null(strstr(err, "at most 16"));
}

static void test_help_version(void **state)
{
	struct utd_opts o;
	char err[64];

	(void)state;
	const char *h[] = {"utargetd", "--help"};
	assert_int_equal(parse(2, h, &o, err, sizeof(err)), UTD_EXIT_OK);
	const char *v[] = {"utargetd", "-V"};
	assert_int_equal(parse(2, v, &o, err, sizeof(err)), UTD_EXIT_OK);
	assert_int_equal(run(2, v), 0);
	const char *b[] = {"utargetd", "--nope"};
	assert_int_equal(run(2, b), 1);
}

/* ---- start-up and shutdown ---- */
static void test_check(void **state)
{
	char bad_path[256];

	(void)state;
	reset();
	const char *p = write_cfg("good.json", good_cfg);
	const char *a[] = {"utargetd", "--check", "-c", p};
	assert_int_equal(run(4, a), 0);
	/* --check starts nothing */
	assert_string_equal(seq, "");

	snprintf(bad_path, sizeof(bad_path), "%s/missing.json", dir);
	const char *b[] = {"utargetd", "--check", "-c", bad_path};
	assert_int_equal(run(4, b), 1);
	p = write_cfg("bad.json", "{\"version\": 1,\n\"targets\": [{\"name\": \"bad name\"}]}\n");
	const char *c[] = {"utargetd", "--check", "-c", p};
	assert_int_equal(run(4, c), 1);
	/* a file back-store that does not exist fails the check too */
	snprintf(bad_path, sizeof(bad_path),
		 "{\"version\": 1, \"backstores\": [{\"name\": \"f\", \"type\": \"file\","
		 " \"path\": \"%s/none.img\"}]}",
		 dir);
	p = write_cfg("nofile.json", bad_path);
	const char *d[] = {"utargetd", "--check", "-c", p};
	assert_int_equal(run(4, d), 1);
	assert_string_equal(seq, "");
}

static void test_start_and_sigterm(void **state)
{
	(void)state;
	reset();
	signals_to_send[0] = SIGHUP; /* reload */
	signals_to_send[1] = SIGTERM;
	signals_to_send[2] = SIGINT; /* already stopping: no second shutdown */
	const char *p = write_cfg("good.json", good_cfg);
	const char *a[] = {"utargetd",	   "-f",	 "-c",	     p,
			   "--threads",	   "2",		 "--listen", "127.0.0.1:3410",
			   "--rpc-socket", "/tmp/x.sock"};
	assert_int_equal(run(ARRAY_SIZE(a), a), 0);
	assert_string_equal(seq, "pool_start scsi_core_init iscsi_init apply rpc pool_run reload "
				 "iscsi_shutdown pool_stop rpc_stop destroy pool_join");
	/* two connections still being freed: the pool stops after them */
	reset();
	fake_alive = 2;
	signals_to_send[0] = SIGTERM;
	assert_int_equal(run(ARRAY_SIZE(a), a), 0);
	assert_string_equal(seq, "pool_start scsi_core_init iscsi_init apply rpc pool_run "
				 "iscsi_shutdown drain drain pool_stop rpc_stop destroy pool_join");
	assert_string_equal(seen_socket, "/tmp/x.sock");
	assert_int_equal(seen_threads, 2);
	assert_int_equal(seen_nlisten, 1);
	assert_string_equal(seen_listen0, "127.0.0.1:3410");
	/* the iSCSI settings: the defaults + the file's */
	assert_int_equal(seen_settings_copy.queue_depth, 16);
	assert_int_equal(seen_settings_copy.max_burst_length, 1048576);
	assert_null(sig_handle);
}

static void test_start_failures(void **state)
{
	(void)state;
	const char *p = write_cfg("good.json", good_cfg);
	const char *a[] = {"utargetd", "-f", "-c", p};

	reset();
	fail_apply = 1;
	assert_int_equal(run(4, a), 1);
	/* undone, never announced, never run */
	assert_string_equal(seq, "pool_start scsi_core_init iscsi_init apply iscsi_shutdown "
				 "pool_stop pool_join");

	/* an explicit control socket that cannot listen is fatal */
	reset();
	fail_rpc = 1;
	const char *r[] = {"utargetd", "-f", "-c", p, "--rpc-socket", "/tmp/x.sock"};
	assert_int_equal(run(6, r), 1);
	assert_string_equal(seq, "pool_start scsi_core_init iscsi_init apply rpc destroy "
				 "iscsi_shutdown pool_stop pool_join");
	/* the default one is not: the daemon runs without it */
	reset();
	fail_rpc = 1;
	signals_to_send[0] = SIGTERM;
	assert_int_equal(run(4, a), 0);
	assert_string_equal(seen_socket, "/run/utarget/utargetd.sock");

	reset();
	fail_iscsi_init = 1;
	assert_int_equal(run(4, a), 1);
	assert_string_equal(seq, "pool_start scsi_core_init iscsi_init pool_stop pool_join");

	reset();
	fail_pool_start = 1;
	assert_int_equal(run(4, a), 1);
	assert_string_equal(seq, "pool_start");

	/* a config error stops before anything starts */
	reset();
	p = write_cfg("bad.json", "{\"version\": 1,\n\"bogus\": 1}\n");
	const char *b[] = {"utargetd", "-f", "-c", p};
	assert_int_equal(run(4, b), 1);
	assert_string_equal(seq, "");
}

static void test_sd_notify(void **state)
{
	char path[128], buf[64];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;
	ssize_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	utd_sd_notify("READY=1");
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "READY=1", 7);
	/* not a socket path: ignored */
	setenv("NOTIFY_SOCKET", "relative", 1);
	utd_sd_notify("READY=1");
	unsetenv("NOTIFY_SOCKET");
	utd_sd_notify("READY=1");
	assert_true(recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0);
	close(fd);
}

/* READY=1, RELOADING=1 (with MONOTONIC_USEC) + READY=1 around a SIGHUP
 * reload, STOPPING=1 on SIGTERM, in that order, to $NOTIFY_SOCKET. */
static void test_notify_sequence(void **state)
{
	char path[128], buf[128], got[512] = "";
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	ssize_t n;
	int fd;

	(void)state;
	reset();
	snprintf(path, sizeof(path), "%s/notify2", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	signals_to_send[0] = SIGHUP;
	signals_to_send[1] = SIGTERM;
	const char *p = write_cfg("good.json", good_cfg);
	const char *a[] = {"utargetd", "-f", "-c", p, "--rpc-socket", "/tmp/x.sock"};
	assert_int_equal(run(6, a), 0);
	unsetenv("NOTIFY_SOCKET");
	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		if (!strncmp(buf, "RELOADING=1\nMONOTONIC_USEC=", 27))
			buf[11] = '\0'; /* the time varies */
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s;", buf);
	}
	close(fd);
	assert_string_equal(got, "READY=1;RELOADING=1;READY=1;STOPPING=1;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_options),	      cmocka_unit_test(test_option_errors),
	    cmocka_unit_test(test_help_version),      cmocka_unit_test(test_check),
	    cmocka_unit_test(test_start_and_sigterm), cmocka_unit_test(test_start_failures),
	    cmocka_unit_test(test_notify_sequence),   cmocka_unit_test(test_sd_notify),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
