/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vpd.c: VPD pages (vpd.c) for a thick and a thin LU: lengths, the
 * supported pages list, device identification designators, block limits
 * and provisioning consistent with limits.h.
 *
 *   p1 "iqn.test:a" --- target --- LUN 0: lu (thin in the thin tests)    */
#include "harness.h"

#include "scsi/cdb.h"
#include "scsi/limits.h"

static int setup_thick(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	*state = h;
	return 0;
}

static int setup_thin(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct scsi_lu_attrs a = h_attrs();

	a.thin = true;
	h_setup_attrs(h, &a);
	h_clear_ua(h->p1, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	h_teardown(h);
	free(h);
	return 0;
}

static uint32_t vpd(struct harness *h, uint8_t page, uint8_t *buf, uint16_t alloc)
{
	uint8_t cdb[6] = {0x12, 0x01, page, 0, 0, 0};
	struct loop_result r;

	put_be16(cdb + 3, alloc);
	h_cmd(h->p1, 0, cdb, 6, SCSI_DIR_READ, buf, alloc, &r);
	assert_int_equal(r.status, SAM_STAT_GOOD);
	return r.data_in_len;
}

static void test_supported_pages(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], pg[1024];
	uint32_t n = vpd(h, 0x00, buf, 255);

	assert_int_equal(n, 4 + get_be16(buf + 2));
	/* every listed page answers with its own page code (8Fh is longer
	 * than 255 bytes) */
	for (uint32_t i = 4; i < n; i++) {
		uint32_t m = vpd(h, buf[i], pg, sizeof(pg));
		assert_true(m >= 4);
		assert_int_equal(pg[1], buf[i]);
		assert_int_equal(m, 4 + get_be16(pg + 2));
	}
}

static void test_serial_and_device_id(void **state)
{
	struct harness *h = *state;
	uint8_t buf[512];
	uint32_t n;
	bool naa = false, t10 = false, port_name = false, rtpi = false;

	n = vpd(h, 0x80, buf, 255);
	assert_int_equal(n, 4 + 10);
	assert_memory_equal(buf + 4, "SERIAL0001", 10);

	n = vpd(h, 0x83, buf, sizeof(buf));
	for (uint32_t off = 4; off + 4 <= n; off += 4 + buf[off + 3]) {
		const uint8_t *d = buf + off;
		uint8_t assoc = (d[1] >> 4) & 3, type = d[1] & 0x0f;

		if (assoc == 0 && type == 3) {
			naa = true;
			assert_int_equal(d[3], 16);
			assert_int_equal(d[4] >> 4, 6);
		}
		if (assoc == 0 && type == 1) {
			t10 = true;
			assert_memory_equal(d + 4, "UTARGET SERIAL0001", 18);
		}
		if (assoc == 1 && type == 8) {
			port_name = true;
			assert_int_equal(d[3] % 4, 0);
			assert_string_equal((const char *)d + 4, "iqn.test:t,t,0x0001");
		}
		if (assoc == 1 && type == 4) {
			rtpi = true;
			assert_int_equal(get_be16(d + 6), 1);
		}
	}
	assert_true(naa && t10 && port_name && rtpi);
}

static void test_block_limits_thick(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], lbp[255];

	assert_int_equal(vpd(h, 0xb0, buf, 255), 64);
	assert_int_equal(buf[3], 0x3c);
	assert_int_equal(get_be32(buf + 8), SCSI_MAX_XFER_BYTES / H_BS);
	assert_int_equal(get_be32(buf + 12), SCSI_OPT_XFER_BYTES / H_BS);
	/* not thin: no UNMAP limits */
	assert_int_equal(get_be32(buf + 20), 0);
	assert_int_equal(get_be32(buf + 24), 0);
	assert_int_equal(vpd(h, 0xb2, lbp, 255), 8);
	assert_int_equal(lbp[5], 0);
	assert_int_equal(lbp[6] & 7, 0);
	assert_int_equal(vpd(h, 0xb1, buf, 255), 64);
	assert_int_equal(get_be16(buf + 4), 1);
}

static void test_block_limits_thin(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], lbp[255];

	vpd(h, 0xb0, buf, 255);
	vpd(h, 0xb2, lbp, 255);
	assert_int_equal(lbp[6] & 7, 2);
	assert_int_equal(lbp[5] & 0x04, 0x04); /* LBPRZ */
	if (cdb_opcode(0x42)) {
		/* UNMAP present: limits non-zero, sane, and within limits.h */
		assert_int_equal(lbp[5] & 0x80, 0x80);
		assert_true(get_be32(buf + 20) > 0);
		assert_true(get_be32(buf + 20) <= 1024 * 1024);
		assert_true((uint64_t)get_be32(buf + 20) * H_BS <= SBC_MAX_UNMAP_BYTES);
		assert_int_equal(get_be32(buf + 24), SBC_MAX_UNMAP_DESCRIPTORS);
	} else {
		assert_int_equal(get_be32(buf + 20), 0);
	}
}

static bool listed(struct harness *h, uint8_t page)
{
	uint8_t buf[255];
	uint32_t n = vpd(h, 0x00, buf, 255);

	for (uint32_t i = 4; i < n; i++)
		if (buf[i] == page)
			return true;
	return false;
}

/* 85h: listed, with no descriptor (the control plane is a UNIX socket). */
static void test_mgmt_network_addresses(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255];

	assert_true(listed(h, 0x85));
	assert_int_equal(vpd(h, 0x85, buf, 255), 4);
	assert_int_equal(buf[1], 0x85);
	assert_int_equal(get_be16(buf + 2), 0);
}

/* 87h: one descriptor per mode page, each shared by every I_T nexus and
 * not by other LUs; every page it names answers MODE SENSE. */
static void test_mode_page_policy(void **state)
{
	struct harness *h = *state;
	uint8_t buf[255], ms[255];
	uint32_t n;
	struct loop_result r;
	bool ctl_ext = false;

	assert_true(listed(h, 0x87));
	n = vpd(h, 0x87, buf, 255);
	assert_int_equal(n, 4 + 7 * 4);
	for (uint32_t off = 4; off < n; off += 4) {
		uint8_t cdb[10] = {0x5a, 0x08, buf[off] & 0x3f, buf[off + 1], 0, 0, 0, 0, 255, 0};

		assert_int_equal(buf[off + 2], 0x00); /* MLUS 0, shared */
		ctl_ext = ctl_ext || (buf[off] == 0x0a && buf[off + 1] == 0x01);
		h_cmd(h->p1, 0, cdb, 10, SCSI_DIR_READ, ms, 255, &r);
		assert_int_equal(r.status, SAM_STAT_GOOD);
		assert_int_equal(ms[8] & 0x3f, buf[off]);
		/* the same page is what the other nexus sees: one copy */
	}
	assert_true(ctl_ext);
}

/* 88h: every target port that reaches the LU, by relative target port
 * identifier, with its SCSI name string; a port of a target that does not
 * map the LU is not one of them until it does. */
static void test_scsi_ports(void **state)
{
	struct harness *h = *state;
	struct scsi_target *t2 = scsi_target_create("iqn.test:u");
	struct scsi_lun_map *m2 = scsi_lun_map_create();
	struct loop_port *p3, *p4;
	uint8_t buf[512];
	uint32_t n;
	static const struct {
		uint16_t id;
		const char *name;
	} want[] = {
	    {1, "iqn.test:t,t,0x0001"}, {2, "iqn.test:t,t,0x0002"}, {3, "iqn.test:u,t,0x0003"}};

	assert_true(listed(h, 0x88));
	n = vpd(h, 0x88, buf, sizeof(buf));
	assert_int_equal(get_be16(buf + 4 + 10), 24);
	assert_int_equal(n, 4 + 12 + 24);
	assert_int_equal(get_be16(buf + 4 + 2), 1);

	/* port 2 of the same target, port 3 of a target without the LU */
	assert_non_null(t2);
	assert_non_null(m2);
	p3 = loop_create(h->t, 2, "iqn.test:c");
	scsi_target_set_default_map(t2, m2, true);
	p4 = loop_create(t2, 3, "iqn.test:d");
	assert_non_null(p3);
	assert_non_null(p4);
	n = vpd(h, 0x88, buf, sizeof(buf));
	assert_int_equal(n, 4 + 2 * (12 + 24));
	/* the LU mapped into the second target as well */
	assert_int_equal(scsi_lun_map_add(m2, 7, h->lu, false), 0);
	n = vpd(h, 0x88, buf, sizeof(buf));
	assert_int_equal(n, 4 + 3 * (12 + 24));
	assert_int_equal(get_be16(buf + 2), n - 4);
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *d = buf + 4 + i * (12 + 24);

		assert_int_equal(get_be16(d + 2), want[i].id);
		assert_int_equal(get_be16(d + 6), 0); /* no initiator port TransportID */
		assert_int_equal(get_be16(d + 10), 24);
		/* SCSI name string, target port association, iSCSI, PIV */
		assert_int_equal(d[12], 0x53);
		assert_int_equal(d[13], 0x80 | 0x10 | 0x08);
		assert_int_equal(d[15], 20);
		assert_string_equal((const char *)d + 16, want[i].name);
	}
	loop_destroy(p3);
	loop_destroy(p4);
	scsi_lun_map_put(m2);
	scsi_target_destroy(t2);
}

static void test_allocation_length(void **state)
{
	struct harness *h = *state;
	uint8_t a[255], b[8];

	vpd(h, 0x83, a, 255);
	/* a short allocation length returns the same leading bytes */
	assert_int_equal(vpd(h, 0x83, b, 8), 8);
	assert_memory_equal(a, b, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_supported_pages, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_serial_and_device_id, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_block_limits_thick, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_block_limits_thin, setup_thin, teardown),
	    cmocka_unit_test_setup_teardown(test_allocation_length, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_mgmt_network_addresses, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_mode_page_policy, setup_thick, teardown),
	    cmocka_unit_test_setup_teardown(test_scsi_ports, setup_thick, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
