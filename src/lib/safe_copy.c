/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safe_copy.c: see safe_copy.h.
 *
 * The copy is memcpy() under a guard. A SIGBUS handler, installed once
 * (safe_copy_arm), looks for a jump buffer armed by the faulting thread:
 * one is armed only inside safe_copy(), which the handler leaves with
 * siglongjmp(), and safe_copy() then answers EFAULT. Any other SIGBUS is
 * not ours: the handler puts back the action it found at install time and
 * returns, the faulting instruction runs again and faults to that action
 * (the default: the process dumps core, as it would have without us).
 *
 * SA_NODEFER keeps SIGBUS unblocked while the handler runs, so jumping out
 * of it leaves the thread's signal mask as it was without saving the mask
 * at every copy (sigsetjmp(.., 0): no system call per copy).
 *
 * Why not process_vm_readv() on the own process, which answers EFAULT by
 * itself (the first version): a system call and a page-table walk per copy
 * cost 0.3-0.4 us more than memcpy() per 4 KiB READ (bench/read_paths,
 * pvr+crc against snap+crc, docs/performance.md section 21), and every
 * READ with DataDigest now takes this copy. */
#include "lib/safe_copy.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static _Thread_local sigjmp_buf *guard;
static struct sigaction before; /* SIGBUS's action when the guard went in */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *j = guard;

	(void)si;
	(void)uc;
	if (j) {
		guard = NULL;
		siglongjmp(*j, 1);
	}
	/* not a guarded copy: the fault repeats under the earlier action */
	sigaction(sig, &before, NULL);
}

int safe_copy_arm(void)
{
	struct sigaction sa, cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, NULL, &cur) < 0)
		return -errno;
	if (cur.sa_sigaction == on_sigbus && (cur.sa_flags & SA_SIGINFO))
		return 0; /* already in */
	if (sigaction(SIGBUS, &sa, &before) < 0)
		return -errno;
	return 0;
}

int safe_copy(void *dst, const void *src, size_t n)
{
	sigjmp_buf jb;

	if (!n)
		return 0;
	if (sigsetjmp(jb, 0))
		return -EFAULT; /* from on_sigbus: src stopped being readable */
	guard = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst, src, n);
	atomic_signal_fence(memory_order_seq_cst);
	guard = NULL;
	return 0;
}

static pthread_once_t arm_once = PTHREAD_ONCE_INIT;
static bool works;

static void arm(void)
{
	works = safe_copy_arm() == 0;
}

bool safe_copy_works(void)
{
	pthread_once(&arm_once, arm);
	return works;
}
