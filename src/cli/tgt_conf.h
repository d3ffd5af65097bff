/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tgt_conf.h: tgt's targets.conf syntax (tgt_conf.c) as a tree of nodes. */
#ifndef UT_CLI_TGT_CONF_H
#define UT_CLI_TGT_CONF_H

#include <stdbool.h>
#include <stddef.h>

/* An option ("key value") or a block ("<key value> ... </key>"), in file
 * order. value is NULL when the line had none; strings are NUL-terminated. */
struct tgt_node {
	char *key;
	char *value;
	bool is_block;
	const char *file; /* one of tgt_conf.files */
	int line;
	struct tgt_node **kids; /* a block's contents */
	size_t nkids, cap;
};

struct tgt_conf {
	struct tgt_node *root; /* a block without a name: the global level */
	char **files;	       /* every file read, the main one first, as named */
	char **ids;	       /* the same, resolved (realpath) */
	size_t nfiles;
};

/* Read file and what it includes. 0, or -errno with "FILE:LINE: message"
 * in err. */
int tgt_conf_load(const char *file, struct tgt_conf **out, char *err, size_t errsize);
void tgt_conf_free(struct tgt_conf *c);

#endif
