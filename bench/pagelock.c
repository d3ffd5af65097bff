/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagelock FILE...: keep the files' pages in the page cache while it runs.
 *
 * The bench compares targets on file LUNs "in the page cache". On the
 * reference VM the kernel runs DAMON with a pageout scheme
 * (/sys/kernel/mm/damon/admin/kdamonds/0): page-cache pages that were not
 * touched for about a minute are written back and dropped, 1 GiB falling
 * to 850 MiB cached within a minute of being read, even with 23 GiB free.
 * A LUN idle while the other target runs its case, or read at random at
 * QD1 (each page touched every few seconds), then meets cache misses that
 * are the disk's, not the target's (docs/performance.md, section 18).
 *
 * pagelock maps each FILE shared and read-only and mlock()s the mapping,
 * which reads in what is missing and makes those pages unevictable, prints
 * "locked N MiB in K files" on stdout and waits for SIGTERM or SIGINT. The
 * targets' own reads and writes go through the same page-cache pages.
 * Needs CAP_IPC_LOCK (root) or a large enough RLIMIT_MEMLOCK. Exit status:
 * 0 after a signal, 1 when a file cannot be opened, mapped or locked. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned long long total = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block, old;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: pagelock FILE...  (keeps the files' pages in the page "
				"cache until SIGTERM)\n");
		return argc < 2 ? 1 : 0;
	}
	/* the signal is blocked until sigsuspend waits for it: none is lost */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		void *p;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &st) < 0) {
			fprintf(stderr, "pagelock: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (st.st_size == 0) {
			close(fd);
			continue;
		}
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED || mlock(p, (size_t)st.st_size) < 0) {
			fprintf(stderr, "pagelock: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		close(fd); /* the mapping keeps the file */
		total += (unsigned long long)st.st_size;
	}
	printf("locked %llu MiB in %d files\n", total >> 20, argc - 1);
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
