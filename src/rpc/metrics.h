/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h: the running target's statistics in the Prometheus text
 * exposition format, version 0.0.4 (the daemon's /metrics, docs/config.md
 * "metrics"). Rendered from the interfaces stats.get and session.list read
 * (config/ctl.h, scsi/scsi.h, fabric/iscsi/iscsi.h); no HTTP here (the
 * daemon serves it: src/daemon/metrics_http.c). Reactor 0 only, like the
 * rest of the control API. */
#ifndef UT_RPC_METRICS_H
#define UT_RPC_METRICS_H

#include <stddef.h>

/* The whole exposition, malloc'ed and NUL-terminated (*len without the
 * NUL); version goes into utarget_build_info. 0 or -ENOMEM. */
int rpc_metrics_render(const char *version, char **text, size_t *len);

#endif
