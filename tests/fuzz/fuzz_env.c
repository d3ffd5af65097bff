/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_env.c: see fuzz_env.h. */
#include "fuzz_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backstore/backstore.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "lib/reactor.h"

static struct reactor *fz_r;

void fz_init(void)
{
	struct iscsi_settings s;
	const char *lvl = getenv("FUZZ_LOG");

	if (fz_r)
		return;
	if (lvl && log_level_parse(lvl) >= 0)
		log_set_level(log_level_parse(lvl));
	else
		log_level_current = -1; /* silent: peer errors are the normal case here */
	if (scsi_core_init() || reactor_create(&fz_r, 0)) {
		fprintf(stderr, "fuzz: cannot initialize the core or the reactor\n");
		abort();
	}
	iscsi_settings_default(&s);
	s.nop_in_interval_s = 0; /* no timer-driven traffic: deterministic */
	s.login_timeout_s = 3600;
	s.queue_depth = 32;
	iscsi_init(&s);
}

struct reactor *fz_reactor(void)
{
	return fz_r;
}

static void fz_stop_msg(struct reactor_msg *m)
{
	reactor_stop(fz_r);
	free(m);
}

void fz_pump(void)
{
	struct reactor_msg *m = calloc(1, sizeof(*m));

	if (!m)
		abort();
	m->fn = fz_stop_msg;
	reactor_post(fz_r, m);
	reactor_run(fz_r);
}

bool fz_pump_until(bool (*done)(void), unsigned max_ms)
{
	const struct timespec nap = {.tv_nsec = 100000};
	uint64_t end = reactor_now_ns() + (uint64_t)max_ms * 1000000u;

	for (;;) {
		fz_pump();
		if (done())
			return true;
		if (reactor_now_ns() > end)
			return false;
		nanosleep(&nap, NULL);
	}
}

static int fz_lu(const char *name, uint64_t size, uint32_t bsz, struct scsi_lu **out)
{
	struct bs_params p = {
	    .type = "ram",
	    .name = name,
	    .size = size,
	    .block_size = bsz,
	};
	struct scsi_lu_attrs a = {
	    .block_size = bsz,
	    .thin = true,
	    .write_cache = true,
	};
	struct bs_dev *dev;
	int rc;

	snprintf(a.vendor, sizeof(a.vendor), "UTARGET");
	snprintf(a.product, sizeof(a.product), "FUZZ");
	snprintf(a.revision, sizeof(a.revision), "1");
	snprintf(a.serial, sizeof(a.serial), "%s", name);
	a.naa[0] = 0x60;
	a.naa[15] = (uint8_t)name[2]; /* "fz0" / "fz1": distinct designators */
	rc = bs_open(&p, &dev);
	if (rc)
		return rc;
	rc = scsi_lu_create(name, dev, &a, out);
	if (rc)
		bs_close(dev);
	return rc;
}

int fz_scsi_create(struct fz_scsi *e)
{
	memset(e, 0, sizeof(*e));
	e->t = scsi_target_create(FZ_TARGET);
	e->map = scsi_lun_map_create();
	if (!e->t || !e->map)
		goto fail;
	if (fz_lu("fz0", 1u << 20, 512, &e->lu[0]) || fz_lu("fz1", 256u << 10, 4096, &e->lu[1]))
		goto fail;
	if (scsi_lun_map_add(e->map, 0, e->lu[0], false) ||
	    scsi_lun_map_add(e->map, 1, e->lu[1], false))
		goto fail;
	scsi_target_set_default_map(e->t, e->map, true);
	return 0;
fail:
	fz_scsi_destroy(e);
	return -ENOMEM;
}

void fz_scsi_destroy(struct fz_scsi *e)
{
	if (e->map)
		scsi_lun_map_put(e->map);
	for (unsigned i = 0; i < 2; i++)
		if (e->lu[i])
			scsi_lu_put(e->lu[i]);
	if (e->t)
		scsi_target_destroy(e->t);
	memset(e, 0, sizeof(*e));
}

uint8_t fz_u8(struct fz_in *in)
{
	return in->off < in->len ? in->p[in->off++] : 0;
}

uint16_t fz_u16(struct fz_in *in)
{
	uint16_t hi = fz_u8(in);

	return (uint16_t)(hi << 8 | fz_u8(in));
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t hi = fz_u16(in);

	return hi << 16 | fz_u16(in);
}

const uint8_t *fz_bytes(struct fz_in *in, size_t n, size_t *got)
{
	const uint8_t *p = in->p + in->off;
	size_t k = n < fz_left(in) ? n : fz_left(in);

	in->off += k;
	*got = k;
	return p;
}
