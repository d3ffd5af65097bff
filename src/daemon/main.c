/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: utargetd, the utarget daemon.
 *
 * Start-up (nothing is announced before every step has succeeded; on any
 * failure what was built is undone and the exit status is 1):
 *   options -> load + verify the whole config and replay the changes
 *   acknowledged since it was written (its journal; one error line naming
 *   the file, the line and the field) -> [detach] -> block signals ->
 *   reactor_pool_start -> scsi_core_init -> iscsi_init -> cfg_ctl_apply
 *   (every back-store opened, every listener bound) -> the control socket
 *   (src/rpc) -> "utargetd ready: ..." (and READY=1 to $NOTIFY_SOCKET) ->
 *   reactor_pool_run.
 * SIGINT/SIGTERM: graceful stop (STOPPING=1; iscsi_shutdown, the control
 * socket closed, back-stores closed, exit 0).
 * SIGHUP: reload: the file is read again and only the difference applied
 * (RELOADING=1 ... READY=1); a rejected file changes nothing.
 * SIGPIPE is ignored (peer resets surface as EPIPE).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "config/ctl.h"
#include "config/persist.h"
#include "daemon/metrics_http.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/compiler.h"
#include "lib/log.h"
#include "lib/pidlock.h"
#include "lib/reactor.h"
#include "lib/workq.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"

#ifndef UTARGET_VERSION
#define UTARGET_VERSION "unknown"
#endif

#define UTD_DEFAULT_CONFIG "/etc/utarget/utarget.json"
#define UTD_DEFAULT_SOCKET "/run/utarget/utargetd.sock"
#define UTD_BACKUPS	   5 /* FILE.1 .. FILE.5 */
#define UTD_MAX_LISTEN	   16
#define UTD_MAX_THREADS	   256

struct utd_opts {
	const char *config;
	bool foreground;
	bool check;
	int log_level; /* -1: from the config, else notice */
	unsigned threads;
	const char *log_file;
	const char *listen[UTD_MAX_LISTEN];
	size_t nlisten;
	const char *rpc_socket; /* --rpc-socket */
};

enum utd_parse_result { UTD_RUN = 0, UTD_EXIT_OK = 1, UTD_EXIT_ERR = 2 };

static void utd_usage(FILE *f)
{
	fprintf(f,
		"Usage: utargetd [options]\n"
		"A user-space SCSI target (iSCSI).\n\n"
		"  -c, --config FILE      configuration file (default " UTD_DEFAULT_CONFIG ")\n"
		"  -f, --foreground       stay in the foreground, log to stderr\n"
		"      --listen ADDR:PORT listen here instead of the portals of every portal\n"
		"                         group in the config (repeatable; IPv4 a.b.c.d:port,\n"
		"                         IPv6 [addr]:port)\n"
		"      --log-level LEVEL  err, warn, notice, info or debug (default: the\n"
		"                         config's log_level, else notice)\n"
		"      --log-file FILE    without -f: append the log to FILE (default: discarded)\n"
		"      --threads N        reactor threads (default: online CPUs)\n"
		"      --check            validate the configuration and exit (0 valid, 1 not)\n"
		"      --rpc-socket PATH  control socket (default: the config's rpc_socket, else\n"
		"                         " UTD_DEFAULT_SOCKET ")\n"
		"  -h, --help             this text\n"
		"  -V, --version          the version\n");
}

static unsigned utd_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > UTD_MAX_THREADS ? UTD_MAX_THREADS : (unsigned)n;
}

/* Options -> o. Errors are one line on errf. */
static enum utd_parse_result utd_parse_args(int argc, char **argv, struct utd_opts *o, FILE *errf)
{
	enum { OPT_LISTEN = 256, OPT_LOG_LEVEL, OPT_LOG_FILE, OPT_THREADS, OPT_CHECK, OPT_RPC };
	static const struct option longopts[] = {
	    {.name = "config", .has_arg = required_argument, .val = 'c'},
	    {.name = "foreground", .has_arg = no_argument, .val = 'f'},
	    {.name = "listen", .has_arg = required_argument, .val = OPT_LISTEN},
	    {.name = "log-level", .has_arg = required_argument, .val = OPT_LOG_LEVEL},
	    {.name = "log-file", .has_arg = required_argument, .val = OPT_LOG_FILE},
	    {.name = "threads", .has_arg = required_argument, .val = OPT_THREADS},
	    {.name = "check", .has_arg = no_argument, .val = OPT_CHECK},
	    {.name = "rpc-socket", .has_arg = required_argument, .val = OPT_RPC},
	    {.name = "help", .has_arg = no_argument, .val = 'h'},
	    {.name = "version", .has_arg = no_argument, .val = 'V'},
	    {0},
	};
	int ch;

	*o = (struct utd_opts){
	    .config = UTD_DEFAULT_CONFIG,
	    .log_level = -1,
	    .threads = utd_default_threads(),
	};
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:fhV", longopts, NULL)) != -1) {
		const char *why;
		char *end;
		unsigned long v;

		switch (ch) {
		case 'c':
			o->config = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case OPT_LISTEN:
			if (!cfg_portal_valid(optarg, &why)) {
				fprintf(errf, "utargetd: --listen %s: %s\n", optarg, why);
				return UTD_EXIT_ERR;
			}
			if (o->nlisten == UTD_MAX_LISTEN) {
				fprintf(errf, "utargetd: at most %d --listen addresses\n",
					UTD_MAX_LISTEN);
				return UTD_EXIT_ERR;
			}
			o->listen[o->nlisten++] = optarg;
			break;
		case OPT_LOG_LEVEL:
			o->log_level = log_level_parse(optarg);
			if (o->log_level < 0) {
				fprintf(errf,
					"utargetd: --log-level %s: use err, warn, notice, info "
					"or debug\n",
					optarg);
				return UTD_EXIT_ERR;
			}
			break;
		case OPT_LOG_FILE:
			o->log_file = optarg;
			break;
		case OPT_THREADS:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v < 1 ||
			    v > UTD_MAX_THREADS) {
				fprintf(errf, "utargetd: --threads %s: a number from 1 to %d\n",
					optarg, UTD_MAX_THREADS);
				return UTD_EXIT_ERR;
			}
			o->threads = (unsigned)v;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_RPC:
			o->rpc_socket = optarg;
			break;
		case 'h':
			utd_usage(stdout);
			return UTD_EXIT_OK;
		case 'V':
			printf("utargetd " UTARGET_VERSION "\n");
			return UTD_EXIT_OK;
		case ':':
			fprintf(errf, "utargetd: option %s needs an argument\n", argv[optind - 1]);
			return UTD_EXIT_ERR;
		default:
			fprintf(errf, "utargetd: unknown option %s (see --help)\n",
				argv[optind - 1]);
			return UTD_EXIT_ERR;
		}
	}
	if (optind < argc) {
		fprintf(errf, "utargetd: unexpected argument %s (see --help)\n", argv[optind]);
		return UTD_EXIT_ERR;
	}
	return UTD_RUN;
}

/* ---- readiness: sd_notify protocol and the detached parent ---- */

/* systemd's notify protocol: one datagram to $NOTIFY_SOCKET (a path, or an
 * abstract name written with a leading '@'). Best effort. */
static void utd_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_debug("sd_notify %s: %s", state, strerror(errno));
	close(fd);
}

/* Detach: the parent waits on a pipe until the child reports readiness
 * (exit 0) or fails (exit 1), so "utargetd -c x" without -f still returns
 * the start-up result. The child keeps stderr until it is ready, so start-up
 * errors reach the terminal. Returns the write end of the pipe (child). */
static int utd_detach(void)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "utargetd: pipe: %s\n", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "utargetd: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		/* the intermediate child exits at once; reap it */
		waitpid(pid, NULL, 0);
		_exit(c == 'R' ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0)
		_exit(1);
	/* a second fork: not a session leader, never gets a controlling tty */
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	return p[1];
}

/* Ready: tell the waiting parent, move the log where it belongs. */
static void utd_detached_ready(int fd, const char *log_file)
{
	int out =
	    open(log_file ? log_file : "/dev/null",
		 log_file ? O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC : O_WRONLY | O_CLOEXEC, 0640);

	if (out < 0) {
		log_err("cannot open log file %s: %s; logging discarded", log_file,
			strerror(errno));
		out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	}
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		close(out);
	}
	if (write(fd, "R", 1) != 1)
		log_warn("cannot notify the parent process: %s", strerror(errno));
	close(fd);
}

/* ---- the control plane ---- */

/* SIGHUP: re-read the file and apply the difference (as config.reload). */
static void utd_reload(void)
{
	struct timespec now;
	struct cfg_err err;
	char msg[64];
	size_t n = 0;
	int rc;

	log_notice("SIGHUP: reloading %s", cfg_store_file());
	/* systemd >= 253 (Type=notify-reload) wants the monotonic time too */
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now.tv_sec * 1000000ull +
		     (unsigned long long)now.tv_nsec / 1000);
	utd_sd_notify(msg);
	rc = cfg_ctl_reload(&n, &err);
	if (rc) {
		char line[CFG_ERR_PATH_MAX + CFG_ERR_MSG_MAX + 4200];

		cfg_err_format(&err, cfg_store_file(), line, sizeof(line));
		log_err("reload refused, nothing changed: %s", line);
	} else {
		log_notice("reload: %zu change(s) applied", n);
	}
	utd_sd_notify("READY=1");
}

/* The control socket: --rpc-socket, else the config's rpc_socket (a failure
 * to listen on either is fatal), else the default path (when another
 * daemon holds it, this one runs without a control socket and says so). */
static int utd_rpc_start(const struct utd_opts *o)
{
	const char *cfgpath = cfg_ctl_tree()->rpc_socket;
	struct rpc_server_opts ro = {
	    .path = o->rpc_socket ? o->rpc_socket
		    : cfgpath	  ? cfgpath
				  : UTD_DEFAULT_SOCKET,
	    .version = UTARGET_VERSION,
	    .config_file = o->config,
	};
	int rc = rpc_server_start(reactor_pool_get(0), &ro);

	if (rc && !o->rpc_socket && !cfgpath) {
		log_warn("no control socket (%s: %s): utarget cannot reach this daemon", ro.path,
			 strerror(-rc));
		return 0;
	}
	return rc;
}

/* ---- signals, on reactor 0 ---- */
struct utd_signals {
	struct reactor_fd h;
	int stop_signal;
	struct reactor_timer drain; /* after iscsi_shutdown(): until conns are freed */
	uint64_t drain_deadline_ns;
};

/* The reactors keep running until every dropped connection is freed: the
 * core completes the aborts of their commands on them, and a reactor pool
 * stopped earlier would leave those connections (and their buffers)
 * allocated at exit. Bounded: UTD_DRAIN_NS. */
#define UTD_DRAIN_TICK_NS (10ull * 1000000ull)
#define UTD_DRAIN_NS	  (10ull * 1000000000ull)

static void utd_drain_tick(struct reactor_timer *t)
{
	struct utd_signals *s = container_of(t, struct utd_signals, drain);
	unsigned alive = iscsi_conns_alive();

	if (alive && reactor_now_ns() < s->drain_deadline_ns) {
		reactor_timer_arm(reactor_self(), &s->drain, UTD_DRAIN_TICK_NS);
		return;
	}
	if (alive)
		log_warn("iscsi: %u connections not freed %llu s after the stop", alive,
			 (unsigned long long)(UTD_DRAIN_NS / 1000000000ull));
	reactor_pool_stop();
}

static void utd_signal_cb(struct reactor_fd *h, uint32_t revents)
{
	struct utd_signals *s = container_of(h, struct utd_signals, h);
	struct signalfd_siginfo si;

	while (read(h->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			utd_reload();
			break;
		case SIGINT:
		case SIGTERM:
			if (s->stop_signal)
				break;
			s->stop_signal = (int)si.ssi_signo;
			log_notice("%s: stopping", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
			utd_sd_notify("STOPPING=1");
			iscsi_shutdown();
			s->drain_deadline_ns = reactor_now_ns() + UTD_DRAIN_NS;
			reactor_timer_init(&s->drain, utd_drain_tick);
			utd_drain_tick(&s->drain);
			break;
		default:
			break;
		}
	}
}

/* Descriptors the daemon needs beyond its connections: listeners, back-store
 * files, epoll, eventfds and io_uring of each reactor, the control socket. */
#define UTD_NOFILE_SPARE 256u

/* Every connection holds a descriptor from its accept on. A soft limit of
 * 1024 (a shell's default) would fail accept(2) below max_sessions (1024 by
 * default) plus the connections in login and the discovery sessions the
 * caps allow: raise the soft limit to the hard one (the systemd unit sets
 * both), and say so when even that is short of what the caps allow. */
static void utd_raise_nofile(const struct cfg_iscsi_settings *s)
{
	unsigned long long want = (unsigned long long)s->max_sessions + s->max_logins_in_progress +
				  s->max_discovery_sessions + UTD_NOFILE_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			log_warn("open files: cannot raise the soft limit %llu to %llu: %s",
				 (unsigned long long)old, (unsigned long long)rl.rlim_max,
				 strerror(errno));
			rl.rlim_cur = old;
		} else {
			log_info("open files: soft limit raised from %llu to %llu",
				 (unsigned long long)old, (unsigned long long)rl.rlim_cur);
		}
	}
	if (s->max_sessions && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
		log_warn("open files: limit %llu, below the %llu that iscsi.max_sessions + "
			 "max_logins_in_progress + max_discovery_sessions + %u need: raise the "
			 "hard limit (LimitNOFILE= in the unit, ulimit -Hn)",
			 (unsigned long long)rl.rlim_cur, want, UTD_NOFILE_SPARE);
}

static void utd_print_cfg_err(struct cfg_err *err, const char *file)
{
	char line[CFG_ERR_PATH_MAX + CFG_ERR_MSG_MAX + 4200];

	cfg_err_format(err, file, line, sizeof(line));
	fprintf(stderr, "utargetd: %s\n", line);
}

/* One daemon per configuration file and per state directory (two daemons
 * on one file would each rewrite it from their own view and lose the
 * other's acknowledged changes; on one state directory they would share
 * APTPL state files): a lock file beside each (lib/pidlock.h), held for the
 * daemon's life. The descriptor, or -1 after printing who holds it. */
static int utd_lock(const char *what, const char *path)
{
	pid_t holder;
	int fd = pidlock_acquire(path, &holder);

	if (fd >= 0)
		return fd;
	if (fd == -EWOULDBLOCK && holder)
		fprintf(stderr,
			"utargetd: %s is in use by another utargetd (PID %ld, lock %s): "
			"refusing to start\n",
			what, (long)holder, path);
	else if (fd == -EWOULDBLOCK)
		fprintf(stderr,
			"utargetd: %s is in use by another utargetd (lock %s): refusing "
			"to start\n",
			what, path);
	else
		fprintf(stderr, "utargetd: cannot lock %s (%s): %s\n", what, path, strerror(-fd));
	return -1;
}

/* The lock of the state directory, created 0700 if missing (the daemon
 * creates it there anyway). */
static int utd_lock_state_dir(const struct cfg *c)
{
	char dir[4096], path[4200];

	if (cfg_state_dir_path(c, dir, sizeof(dir)))
		return -1;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "utargetd: state_dir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/utargetd.lock", dir);
	return utd_lock("the state directory", path);
}

static int utd_run(int argc, char **argv, int locks[2]);

int main(int argc, char **argv)
{
	int locks[2] = {-1, -1};
	int rc = utd_run(argc, argv, locks);

	/* the locks end with the daemon (closing the descriptors drops them) */
	for (int i = 0; i < 2; i++)
		if (locks[i] >= 0)
			close(locks[i]);
	return rc;
}

static int utd_run(int argc, char **argv, int locks[2])
{
	struct cfg_iscsi_settings defaults;
	struct utd_signals sigs = {.stop_signal = 0};
	struct cfg_ctl_opts copts;
	struct cfg_err err;
	struct utd_opts o;
	struct cfg *cfg = NULL;
	char summary[1024];
	int ready_fd = -1, sfd, rc;
	char lock_path[4200];
	sigset_t mask;

	switch (utd_parse_args(argc, argv, &o, stderr)) {
	case UTD_RUN:
		break;
	case UTD_EXIT_OK:
		return 0;
	case UTD_EXIT_ERR:
		return 1;
	}
	if (o.log_level >= 0)
		log_set_level(o.log_level);

	cfg_iscsi_defaults(&defaults);
	copts = (struct cfg_ctl_opts){
	    .file = o.config,
	    .backups = UTD_BACKUPS,
	    .listen = o.listen,
	    .nlisten = o.nlisten,
	    .log_level_fixed = o.log_level >= 0,
	    .defaults = &defaults,
	};
	if (o.check) {
		rc = cfg_load(o.config, &defaults, &cfg, &err);
		if (rc == 0) {
			rc = cfg_check_files(cfg, &err);
			if (rc)
				cfg_err_locate(&err, o.config);
		}
	} else {
		/* before the file is read: nothing of it (journal, compaction)
		 * is touched while another daemon owns it */
		snprintf(lock_path, sizeof(lock_path), "%s.lock", o.config);
		locks[0] = utd_lock(o.config, lock_path);
		if (locks[0] < 0)
			return 1;
		/* the file and the changes acknowledged since (its journal) */
		rc = cfg_ctl_load(&copts, &err);
		cfg = (struct cfg *)cfg_ctl_tree();
		if (rc == 0 && (locks[1] = utd_lock_state_dir(cfg)) < 0) {
			cfg_ctl_stop();
			return 1;
		}
	}
	if (rc) {
		utd_print_cfg_err(&err, o.config);
		if (o.check)
			cfg_free(cfg);
		return 1;
	}
	cfg_auth_check_file_mode(o.config, cfg); /* CHAP secrets: the file should be 0600 */
	if (o.check) {
		printf("utargetd: %s: configuration OK (%zu back-store%s, %zu target%s)\n",
		       o.config, cfg->nbs, cfg->nbs == 1 ? "" : "s", cfg->ntargets,
		       cfg->ntargets == 1 ? "" : "s");
		cfg_free(cfg);
		return 0;
	}
	cfg = NULL; /* the control plane owns the tree from here on */
	if (o.log_level < 0 && cfg_ctl_tree()->log_level)
		log_set_level(log_level_parse(cfg_ctl_tree()->log_level));

	if (!o.foreground) {
		ready_fd = utd_detach();
		/* the locks name the daemon, not the parent that exited */
		pidlock_write_pid(locks[0]);
		pidlock_write_pid(locks[1]);
	}

	/* Before any thread exists, so every thread inherits the mask and the
	 * signals arrive only through the signalfd. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		log_err("signalfd: %s", strerror(errno));
		cfg_ctl_stop();
		return 1;
	}

	utd_raise_nofile(&cfg_ctl_tree()->iscsi);
	rc = reactor_pool_start(o.threads);
	if (rc) {
		log_err("cannot start %u reactor threads: %s", o.threads, strerror(-rc));
		close(sfd);
		cfg_ctl_stop();
		return 1;
	}
	rc = scsi_core_init();
	if (rc) {
		log_err("scsi_core_init: %s", strerror(-rc));
		goto fail_pool;
	}
	rc = cfg_apply_iscsi_settings(cfg_ctl_tree()); /* iscsi_init() */
	if (rc) {
		log_err("iscsi_init: %s", strerror(-rc));
		goto fail_pool;
	}
	rc = reactor_fd_add(reactor_pool_get(0), &sigs.h, sfd, REACTOR_IN, utd_signal_cb);
	if (rc) {
		log_err("cannot watch signals: %s", strerror(-rc));
		goto fail_iscsi;
	}
	rc = cfg_ctl_apply(&err);
	if (rc) {
		utd_print_cfg_err(&err, o.config);
		goto fail_sig;
	}
	rc = utd_rpc_start(&o);
	if (rc)
		goto fail_apply;
	if (cfg_ctl_tree()->metrics_listen) {
		rc = utd_metrics_start(reactor_pool_get(0), cfg_ctl_tree()->metrics_listen,
				       UTARGET_VERSION);
		if (rc) {
			rpc_server_stop();
			goto fail_apply;
		}
	}

	cfg_ctl_summary(summary, sizeof(summary));
	log_notice("utargetd ready: %s", summary);
	utd_sd_notify("READY=1");
	if (ready_fd >= 0)
		utd_detached_ready(ready_fd, o.log_file);

	rc = reactor_pool_run();
	if (rc)
		log_err("reactor: %s", strerror(-rc));
	utd_metrics_stop();
	rpc_server_stop();
	cfg_ctl_stop();
	reactor_fd_del(&sigs.h);
	close(sfd);
	/* blocking work still queued (a persistent reservation state file's
	 * fsync, file I/O without io_uring) ends before the reactors its
	 * completions are posted to are freed */
	workq_stop();
	reactor_pool_join();
	log_notice("utargetd stopped");
	return rc ? 1 : 0;

fail_apply:
	cfg_ctl_stop();
fail_sig:
	reactor_fd_del(&sigs.h);
fail_iscsi:
	iscsi_shutdown();
fail_pool:
	reactor_pool_stop();
	reactor_pool_join();
	close(sfd);
	cfg_ctl_stop();
	return 1;
}
