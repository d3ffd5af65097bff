/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr_hold.c: "pr_client hold": one registered initiator port kept logged in
 * while the administrator changes its persistent reservations through the
 * control API (tests/integration/rpc_reservation.sh).
 *
 *   pr_client hold URL INITIATOR ISID KEY APTPL TYPE GOFILE
 *
 * Logs in as INITIATOR with the fixed ISID (hex, "random" format: the same
 * initiator port on every run), consumes the unit attentions of the login,
 * registers KEY (hex; REGISTER AND IGNORE EXISTING KEY, APTPL 0 or 1),
 * reserves with TYPE when it is not 0, prints "registered" and keeps the
 * session serviced (NOP-Ins answered) until GOFILE exists (60 s at most).
 * Then prints "ua: 0xAAQQ" (ASC/ASCQ of the first unit attention reported,
 * 0x0 when none), "keys: N" (READ KEYS) and "reservation: TYPE" (READ
 * RESERVATION, 0 when none), and logs out. Exit 0, 1 when a step failed, 2
 * on usage or login errors. */
#include "pr_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOLD_MAX_S 60.0

/* Service the connection until path exists; false on timeout or a lost
 * connection. */
static bool hold_until(struct prc_path *p, const char *path)
{
	double end = prc_now() + HOLD_MAX_S;

	while (access(path, F_OK) != 0) {
		struct pollfd pfd = {
		    .fd = iscsi_get_fd(p->iscsi),
		    .events = (short)iscsi_which_events(p->iscsi),
		};

		if (prc_now() > end)
			return false;
		if (poll(&pfd, 1, 20) < 0 && errno != EINTR)
			return false;
		if (pfd.revents && iscsi_service(p->iscsi, pfd.revents) < 0) {
			fprintf(stderr, "hold: %s\n", iscsi_get_error(p->iscsi));
			return false;
		}
	}
	return true;
}

int prc_hold(const char *url, const char *initiator, const char *isid, const char *key,
	     const char *aptpl, const char *type, const char *gofile)
{
	struct prc_path p = {.label = "hold"};
	unsigned char buf[256];
	char *end;
	unsigned ua;
	long r, n, t = strtol(type, &end, 10);

	if (*end || t < 0 || t > 15 || !initiator || !key || !aptpl || !isid)
		return 2;
	if (prc_connect_isid(&p, url, initiator, (uint32_t)strtoul(isid, NULL, 16)))
		return 2;
	prc_clear_ua(&p);
	r = prc_prout(&p, PRC_REGISTER_IGNORE, 0, 0, strtoull(key, NULL, 16),
		      strcmp(aptpl, "0") ? PRC_APTPL : 0);
	prc_check(r == 0, "%s: REGISTER AND IGNORE EXISTING KEY %s, APTPL %s", initiator, key,
		  aptpl);
	if (t) {
		r = prc_prout(&p, PRC_RESERVE, (int)t, strtoull(key, NULL, 16), 0, 0);
		prc_check(r == 0, "%s: RESERVE type %ld", initiator, t);
	}
	printf("registered\n");
	fflush(stdout);
	prc_check(hold_until(&p, gofile), "session kept until %s", gofile);
	ua = prc_clear_ua(&p);
	printf("ua: 0x%x\n", ua);
	n = prc_prin(&p, 0, buf, sizeof(buf), &r);
	prc_check(n >= 8, "READ KEYS");
	if (n >= 8)
		printf("keys: %u\n", (unsigned)(prc_be32(buf + 4) / 8));
	n = prc_prin(&p, 1, buf, sizeof(buf), &r);
	prc_check(n >= 8, "READ RESERVATION");
	if (n >= 8)
		printf("reservation: %u\n",
		       prc_be32(buf + 4) >= 16 && n >= 22 ? buf[21] & 0x0f : 0);
	prc_disconnect(&p);
	return prc_failures ? 1 : 0;
}
