/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.c: the config tree's life cycle (defaults, free) and path rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/model.h"

void cfg_backstore_defaults(struct cfg_backstore *b)
{
	*b = (struct cfg_backstore){
	    .block_size = 512,
	    .write_cache = true,
	};
}

static void cfg_free_luns(struct cfg_lun_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].backstore);
	free(l->v);
}

void cfg_free(struct cfg *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nbs; i++) {
		struct cfg_backstore *b = &c->bs[i];
		free(b->name);
		free(b->type);
		free(b->path);
		free(b->vendor);
		free(b->product);
		free(b->revision);
		free(b->serial);
		free(b->naa);
	}
	free(c->bs);
	for (size_t i = 0; i < c->ntargets; i++) {
		struct cfg_target *t = &c->targets[i];
		free(t->name);
		free(t->alias);
		for (size_t g = 0; g < t->ntpgs; g++) {
			for (size_t k = 0; k < t->tpgs[g].nportals; k++)
				free(t->tpgs[g].portals[k]);
			free(t->tpgs[g].portals);
		}
		free(t->tpgs);
		cfg_free_luns(&t->luns);
		for (size_t a = 0; a < t->nacls; a++) {
			free(t->acls[a].initiator);
			cfg_free_luns(&t->acls[a].luns);
		}
		free(t->acls);
	}
	free(c->targets);
	free(c->state_dir);
	free(c->log_level);
	free(c);
}

/* dir (absolute, or relative to the current directory) + "/" + name */
static int cfg_join(const char *dir, const char *name, char *buf, size_t size)
{
	char cwd[CFG_FULL_PATH_MAX];
	int n;

	if (name && name[0] == '/') {
		n = snprintf(buf, size, "%s", name);
	} else if (dir && dir[0] == '/') {
		n = name ? snprintf(buf, size, "%s/%s", dir, name) : snprintf(buf, size, "%s", dir);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (dir && name)
			n = snprintf(buf, size, "%s/%s/%s", cwd, dir, name);
		else if (dir || name)
			n = snprintf(buf, size, "%s/%s", cwd, dir ? dir : name);
		else
			n = snprintf(buf, size, "%s", cwd);
	}
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int cfg_state_dir_path(const struct cfg *c, char *buf, size_t size)
{
	return cfg_join(c->state_dir, NULL, buf, size);
}

int cfg_bs_path(const struct cfg *c, const struct cfg_backstore *b, char *buf, size_t size)
{
	return cfg_join(c->state_dir, b->path, buf, size);
}
