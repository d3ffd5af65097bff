/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vpd.c: standard INQUIRY data (SPC-4 6.6.2) and the vital product data
 * pages (SPC-4 7.8, SBC-4 6.6) of a logical unit. */
#include "scsi/vpd.h"

#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "scsi/alua.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/rod.h"
#include "scsi/spc.h"
#include "lib/t10pi.h"

enum {
	VPD_SUPPORTED_PAGES = 0x00,
	VPD_UNIT_SERIAL = 0x80,
	VPD_DEVICE_ID = 0x83,
	VPD_MGMT_NETWORK_ADDRESSES = 0x85,
	VPD_EXTENDED_INQUIRY = 0x86,
	VPD_MODE_PAGE_POLICY = 0x87,
	VPD_SCSI_PORTS = 0x88,
	VPD_THIRD_PARTY_COPY = 0x8f,
	VPD_BLOCK_LIMITS = 0xb0,
	VPD_BLOCK_CHARACTERISTICS = 0xb1,
	VPD_LB_PROVISIONING = 0xb2,
};

/* SPC-4 7.8.6.1 designation descriptor header */
enum {
	CODE_SET_BINARY = 1,
	CODE_SET_ASCII = 2,
	CODE_SET_UTF8 = 3,
	ASSOC_LU = 0,
	ASSOC_TARGET_PORT = 1,
	ASSOC_TARGET_DEVICE = 2,
	DESIG_T10_VENDOR = 1,
	DESIG_NAA = 3,
	DESIG_REL_TARGET_PORT = 4,
	DESIG_TARGET_PORT_GROUP = 5,
	DESIG_SCSI_NAME = 8,
	PROTOCOL_ISCSI = 5,
	PIV = 0x80,
};

/* libiscsi Inquiry.BlockLimits: a sane MAXIMUM UNMAP LBA COUNT is at most
 * 2^20 blocks; reporting less than SBC_MAX_UNMAP_BYTES allows is safe */
#define VPD_MAX_UNMAP_LBA_COUNT (1u << 20)

static const uint8_t supported_pages[] = {
    VPD_SUPPORTED_PAGES,  VPD_UNIT_SERIAL,
    VPD_DEVICE_ID,	  VPD_MGMT_NETWORK_ADDRESSES,
    VPD_EXTENDED_INQUIRY, VPD_MODE_PAGE_POLICY,
    VPD_SCSI_PORTS,	  VPD_THIRD_PARTY_COPY,
    VPD_BLOCK_LIMITS,	  VPD_BLOCK_CHARACTERISTICS,
    VPD_LB_PROVISIONING,
};

/* SPC-4 7.8.1 version descriptors claimed in the standard INQUIRY data */
static const uint16_t version_descriptors[] = {
    0x00a0, /* SAM-5 */
    0x0960, /* iSCSI (RFC 7143) */
    0x0460, /* SPC-4 */
    0x04c0, /* SBC-3 */
    0x0600, /* SBC-4 */
};

/* Space-padded ASCII field (SPC-4 4.3.1: only 20h..7Eh); other bytes of a
 * configured string become spaces. Returns the bytes of s used. */
static size_t put_ascii(uint8_t *dst, size_t width, const char *s)
{
	size_t n = strnlen(s, width);

	memset(dst, ' ', width);
	for (size_t i = 0; i < n; i++)
		dst[i] = ((uint8_t)s[i] >= 0x20 && (uint8_t)s[i] <= 0x7e) ? (uint8_t)s[i] : ' ';
	return n;
}

static bool has_opcode(uint8_t op)
{
	return cdb_opcode(op) != NULL;
}

size_t spc_std_inquiry(struct scsi_cmd *cmd, uint8_t *buf)
{
	struct scsi_lu *lu = cmd->priv.lu;

	memset(buf, 0, 96);
	if (!lu) {
		/* SPC-4 6.6.2: qualifier 011b, type 1Fh for an unmapped LUN;
		 * the REPORT LUNS well known LU is type 1Eh */
		buf[0] = cmd->lun == LUN_WLUN_REPORT_LUNS ? 0x1e : 0x7f;
	} else {
		buf[0] = 0x00;				    /* direct access block device */
		buf[1] = lu->attrs.removable ? 0x80 : 0x00; /* RMB */
	}
	buf[2] = 0x06; /* VERSION: SPC-4 */
	/* NORMACA 1 (SPC-4 6.6.2: NACA = 1 in the CONTROL byte is supported,
	 * SAM-5 5.9, aca.c), HISUP 1, RESPONSE DATA FORMAT 2 */
	buf[3] = 0x20 | 0x10 | 0x02;
	buf[4] = 96 - 5; /* ADDITIONAL LENGTH */
	/* byte 5: TPGS (bits 5-4, SPC-4 6.6.2: 01b implicit ALUA, 11b also
	 * explicit); 3PC when EXTENDED COPY exists; PROTECT when the LU
	 * supports protection information (SBC-4 4.22: its back-store keeps
	 * tuples), whatever its current format (FORMAT UNIT may choose type 0) */
	buf[5] = has_opcode(0x83) ? 0x08 : 0x00;
	if (lu)
		buf[5] |=
		    (uint8_t)(alua_tpgs(lu) << 4 | ((lu->bs->caps & BS_CAP_PI) ? 0x01 : 0x00));
	buf[7] = 0x02; /* CMDQUE */
	if (lu) {
		put_ascii(buf + 8, 8, lu->attrs.vendor);
		put_ascii(buf + 16, 16, lu->attrs.product);
		put_ascii(buf + 32, 4, lu->attrs.revision);
	} else {
		put_ascii(buf + 8, 8, "UTARGET");
		put_ascii(buf + 16, 16, "");
		put_ascii(buf + 32, 4, "");
	}
	for (size_t i = 0; i < ARRAY_SIZE(version_descriptors); i++)
		put_be16(buf + 58 + 2 * i, version_descriptors[i]);
	return 96;
}

/* NAA 6h designator of the LU: attrs.naa, or (all zero) one derived from the
 * LU name with the locally administered form. */
static void lu_naa(const struct scsi_lu *lu, uint8_t naa[16])
{
	static const uint8_t zero[16];
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	if (memcmp(lu->attrs.naa, zero, 16) != 0) {
		memcpy(naa, lu->attrs.naa, 16);
		return;
	}
	for (const char *s = lu->name; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	memset(naa, 0, 16);
	naa[0] = 0x60; /* NAA 6h, IEEE company id 0 (none) */
	put_be64(naa + 8, h);
}

static uint8_t *desig_hdr(uint8_t *p, uint8_t proto_code_set, uint8_t piv_assoc_type, uint8_t len)
{
	p[0] = proto_code_set;
	p[1] = piv_assoc_type;
	p[2] = 0;
	p[3] = len;
	return p + 4;
}

/* SCSI name string designator: NUL terminated, padded to a multiple of 4
 * (SPC-4 7.8.6.11). Returns bytes written. */
static size_t put_name_desig(uint8_t *p, size_t room, const char *name, uint8_t assoc, bool iscsi)
{
	size_t n = strnlen(name, 252);
	size_t len = (n + 1 + 3) & ~(size_t)3;

	if (4 + len > room)
		return 0;
	desig_hdr(p, (uint8_t)((iscsi ? PROTOCOL_ISCSI << 4 : 0) | CODE_SET_UTF8),
		  (uint8_t)((iscsi ? PIV : 0) | (assoc << 4) | DESIG_SCSI_NAME), (uint8_t)len);
	memset(p + 4, 0, len);
	memcpy(p + 4, name, n);
	return 4 + len;
}

static bool port_is_iscsi(const char *port_name)
{
	return strstr(port_name, ",t,0x") != NULL;
}

/* The LU-associated designators (NAA, T10 vendor id); returns bytes. */
static size_t lu_designators(const struct scsi_lu *lu, uint8_t *p)
{
	uint8_t *q = p;
	size_t n;

	q = desig_hdr(q, CODE_SET_BINARY, (ASSOC_LU << 4) | DESIG_NAA, 16);
	lu_naa(lu, q);
	q += 16;
	n = strnlen(lu->attrs.serial, sizeof(lu->attrs.serial));
	q = desig_hdr(q, CODE_SET_ASCII, (ASSOC_LU << 4) | DESIG_T10_VENDOR, (uint8_t)(8 + n));
	memcpy(q, "UTARGET ", 8);
	put_ascii(q + 8, n, lu->attrs.serial);
	q += 8 + n;
	return (size_t)(q - p);
}

bool vpd_lu_designator_match(struct scsi_lu *lu, const uint8_t *desig, size_t len)
{
	uint8_t buf[128];
	size_t n, off = 0;

	if (len < 4 || (size_t)desig[3] + 4 > len)
		return false;
	n = lu_designators(lu, buf);
	while (off + 4 <= n) {
		const uint8_t *d = buf + off;
		size_t dl = (size_t)d[3] + 4;

		/* same code set, designator type and identifier */
		if ((d[0] & 0x0f) == (desig[0] & 0x0f) && (d[1] & 0x0f) == (desig[1] & 0x0f) &&
		    d[3] == desig[3] && memcmp(d + 4, desig + 4, d[3]) == 0)
			return true;
		off += dl;
	}
	return false;
}

static size_t vpd_device_id(struct scsi_cmd *cmd, uint8_t *buf)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct scsi_tport *tp = cmd->nexus->tport;
	bool iscsi = port_is_iscsi(tp->name);
	uint8_t *p = buf + 4;
	size_t room = VPD_MAX_LEN - 4;
	size_t n;

	n = lu_designators(lu, p);
	p += n;
	room -= n;
	/* target port: SCSI name string and relative target port id */
	n = put_name_desig(p, room, tp->name, ASSOC_TARGET_PORT, iscsi);
	p += n;
	room -= n;
	if (room >= 8) {
		uint8_t *q = desig_hdr(
		    p, (uint8_t)((iscsi ? PROTOCOL_ISCSI << 4 : 0) | CODE_SET_BINARY),
		    (uint8_t)((iscsi ? PIV : 0) | (ASSOC_TARGET_PORT << 4) | DESIG_REL_TARGET_PORT),
		    4);
		q[0] = q[1] = 0;
		put_be16(q + 2, tp->rel_port_id);
		p += 8;
		room -= 8;
	}
	/* SPC-4 7.8.6.7: the target port group of the port (ALUA) */
	if (room >= 8) {
		uint8_t *q =
		    desig_hdr(p, (uint8_t)((iscsi ? PROTOCOL_ISCSI << 4 : 0) | CODE_SET_BINARY),
			      (uint8_t)((iscsi ? PIV : 0) | (ASSOC_TARGET_PORT << 4) |
					DESIG_TARGET_PORT_GROUP),
			      4);
		q[0] = q[1] = 0;
		put_be16(q + 2, alua_port_group_id(tp));
		p += 8;
		room -= 8;
	}
	/* SCSI target device name */
	n = put_name_desig(p, room, tp->target->name, ASSOC_TARGET_DEVICE, iscsi);
	p += n;
	return (size_t)(p - buf);
}

/* SPC-4 7.8.9 Mode Page Policy: one descriptor per mode page (mode.c),
 * MODE PAGE POLICY 00b (shared): an LU keeps one set of mode pages for
 * every I_T nexus; MLUS 0: no page is shared with another LU. */
static size_t vpd_mode_page_policy(struct scsi_lu *lu, uint8_t *buf)
{
	uint8_t *p = buf + 4;

	for (unsigned i = 0; i < MODE_PG_COUNT; i++) {
		if (!mode_page_present(lu, i))
			continue;
		mode_page_id(i, &p[0], &p[1]);
		p[2] = 0x00; /* MLUS 0, MODE PAGE POLICY 00b */
		p[3] = 0;
		p += 4;
	}
	return (size_t)(p - buf);
}

/* SPC-4 7.8.10 SCSI Ports: every target port through which the LU is
 * reachable (the ports of the targets whose LUN maps hold it, as REPORT
 * TARGET PORT GROUPS lists them), by relative target port identifier; no
 * initiator port TransportID (the device server has no initiator ports);
 * as target port descriptor the port's SCSI name string, as in 83h. */
struct vpd_port {
	uint16_t rel_port_id;
	char *name;
	bool iscsi;
};

struct vpd_ports {
	struct vpd_port *v;
	unsigned n, cap;
	bool nomem;
};

static void collect_port(const struct scsi_tport *tp, void *arg)
{
	struct vpd_ports *l = arg;

	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct vpd_port *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->nomem = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].rel_port_id = tp->rel_port_id;
	l->v[l->n].iscsi = port_is_iscsi(tp->name);
	l->v[l->n].name = strdup(tp->name);
	if (!l->v[l->n].name) {
		l->nomem = true;
		return;
	}
	l->n++;
}

static int port_cmp(const void *a, const void *b)
{
	const struct vpd_port *x = a, *y = b;

	return (int)x->rel_port_id - (int)y->rel_port_id;
}

/* -1 when memory ran out */
static int vpd_scsi_ports(struct scsi_lu *lu, uint8_t *buf)
{
	struct vpd_ports l = {0};
	size_t off = 4;
	int rc;

	alua_lu_for_each_port(lu, collect_port, &l);
	qsort(l.v, l.n, sizeof(*l.v), port_cmp);
	for (unsigned i = 0; i < l.n && !l.nomem; i++) {
		uint8_t *d = buf + off;
		size_t n;

		/* 12 bytes of descriptor header before the target port
		 * descriptors; a port that does not fit is left out */
		if (off + 12 > VPD_MAX_LEN)
			break;
		n = put_name_desig(d + 12, VPD_MAX_LEN - off - 12, l.v[i].name, ASSOC_TARGET_PORT,
				   l.v[i].iscsi);
		if (!n)
			break;
		memset(d, 0, 12);
		put_be16(d + 2, l.v[i].rel_port_id); /* RELATIVE PORT IDENTIFIER */
		/* 6-7 INITIATOR PORT TRANSPORTID LENGTH 0 */
		put_be16(d + 10, (uint16_t)n); /* TARGET PORT DESCRIPTORS LENGTH */
		off += 12 + n;
	}
	rc = l.nomem ? -1 : (int)off;
	for (unsigned i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return rc;
}

static size_t vpd_block_limits(struct scsi_lu *lu, uint8_t *buf)
{
	uint32_t shift = lu->block_shift;
	bool unmap = lu->attrs.thin && has_opcode(0x42);

	buf[3] = 0x3c;
	buf[4] = 0; /* WSNZ 0: WRITE SAME with 0 blocks writes to the end */
	if (has_opcode(0x89))
		buf[5] = (uint8_t)SBC_MAX_CAW_BLOCKS;
	put_be16(buf + 6, (uint16_t)UT_MAX(1u, lu->bs->opt_unit >> shift));
	put_be32(buf + 8, SCSI_MAX_XFER_BYTES >> shift);
	put_be32(buf + 12, SCSI_OPT_XFER_BYTES >> shift);
	put_be32(buf + 16, SCSI_MAX_XFER_BYTES >> shift); /* MAXIMUM PREFETCH LENGTH */
	if (unmap) {
		uint64_t cnt = SBC_MAX_UNMAP_BYTES >> shift;

		put_be32(buf + 20, (uint32_t)UT_MIN(cnt, (uint64_t)VPD_MAX_UNMAP_LBA_COUNT));
		put_be32(buf + 24, SBC_MAX_UNMAP_DESCRIPTORS);
		/* the medium's discard granularity where it has a coarser one */
		put_be32(buf + 28, UT_MAX(1u, UT_MAX((uint32_t)SBC_UNMAP_GRANULARITY_BYTES,
						     lu->bs->discard_gran) >>
						  shift));
		buf[32] = 0x80; /* UGAVALID, UNMAP GRANULARITY ALIGNMENT 0 */
	}
	if (has_opcode(0x93) || has_opcode(0x41))
		put_be64(buf + 36, SBC_MAX_WRITE_SAME_BYTES >> shift);
	if (has_opcode(0x9c)) {
		put_be32(buf + 44, SBC_MAX_ATOMIC_BYTES >> shift);
		put_be32(buf + 48, UT_MAX(1u, SBC_ATOMIC_ALIGNMENT_BYTES >> shift));
		put_be32(buf + 52, UT_MAX(1u, SBC_ATOMIC_GRANULARITY_BYTES >> shift));
	}
	return 64;
}

static size_t vpd_provisioning(struct scsi_lu *lu, uint8_t *buf)
{
	buf[3] = 4;
	buf[4] = lbp_threshold_exponent(lu);
	if (lu->attrs.thin) {
		buf[5] = (uint8_t)((has_opcode(0x42) ? 0x80 : 0) | /* LBPU */
				   (has_opcode(0x93) ? 0x40 : 0) | /* LBPWS */
				   (has_opcode(0x41) ? 0x20 : 0) | /* LBPWS10 */
				   0x04);			   /* LBPRZ 001b */
		buf[6] = 0x02;					   /* PROVISIONING TYPE: thin */
	}
	return 8;
}

int vpd_page(struct scsi_cmd *cmd, uint8_t page, uint8_t *buf)
{
	struct scsi_lu *lu = cmd->priv.lu;
	size_t len, n;

	memset(buf, 0, VPD_MAX_LEN);
	buf[0] = 0x00; /* qualifier 000b, direct access */
	buf[1] = page;
	switch (page) {
	case VPD_SUPPORTED_PAGES:
		memcpy(buf + 4, supported_pages, sizeof(supported_pages));
		len = 4 + sizeof(supported_pages);
		break;
	case VPD_UNIT_SERIAL:
		n = put_ascii(buf + 4, strnlen(lu->attrs.serial, sizeof(lu->attrs.serial)),
			      lu->attrs.serial);
		len = 4 + n;
		break;
	case VPD_DEVICE_ID:
		len = vpd_device_id(cmd, buf);
		break;
	case VPD_MGMT_NETWORK_ADDRESSES:
		/* SPC-4 7.8.8: no network service manages the LU: the
		 * control plane is a local UNIX socket, and the iSCSI portals
		 * carry SCSI, not configuration. No descriptor. */
		len = 4;
		break;
	case VPD_MODE_PAGE_POLICY:
		len = vpd_mode_page_policy(lu, buf);
		break;
	case VPD_SCSI_PORTS: {
		int ports = vpd_scsi_ports(lu, buf);

		if (ports < 0)
			return -2;
		len = (size_t)ports;
		break;
	}
	case VPD_EXTENDED_INQUIRY:
		buf[3] = 0x3c;
		/* SPC-4 7.8.7 byte 4: SPT, the types FORMAT UNIT can give
		 * the LU (111b: types 1, 2 and 3; ignored without PROTECT);
		 * as the current format checks: GRD_CHK, APP_CHK for type 2
		 * (the expected application tag comes with the 32-byte CDBs),
		 * REF_CHK for types 1 and 2 */
		if (lu->bs->caps & BS_CAP_PI)
			buf[4] = 0x07 << 3;
		if (lu_pi_type(lu))
			buf[4] |= 0x04;
		if (lu_pi_type(lu) == T10PI_TYPE2)
			buf[4] |= 0x02;
		if (lu_pi_type(lu) == T10PI_TYPE1 || lu_pi_type(lu) == T10PI_TYPE2)
			buf[4] |= 0x01;
		buf[5] = 0x07; /* HEADSUP, ORDSUP, SIMPSUP */
		buf[6] = 0x00; /* V_SUP 0, NV_SUP 0 */
		len = 64;
		break;
	case VPD_THIRD_PARTY_COPY: /* tpc_vpd.c */
		len = vpd_third_party_copy(lu, buf);
		break;
	case VPD_BLOCK_LIMITS:
		len = vpd_block_limits(lu, buf);
		break;
	case VPD_BLOCK_CHARACTERISTICS:
		buf[3] = 0x3c;
		put_be16(buf + 4, 1); /* MEDIUM ROTATION RATE: non-rotating */
		/* SBC-4 6.6.2: WABEREQ 01b: after a SANITIZE BLOCK ERASE a read
		 * of an erased block succeeds (deallocated blocks read as
		 * zeroes, LBPRZ); WACEREQ 00b: no CRYPTO ERASE */
		buf[7] = 0x40;
		len = 64;
		break;
	case VPD_LB_PROVISIONING:
		len = vpd_provisioning(lu, buf);
		break;
	default:
		return -1;
	}
	if (page != VPD_BLOCK_LIMITS && page != VPD_EXTENDED_INQUIRY &&
	    page != VPD_BLOCK_CHARACTERISTICS && page != VPD_LB_PROVISIONING)
		put_be16(buf + 2, (uint16_t)(len - 4));
	return (int)len;
}
