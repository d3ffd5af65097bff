/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c: a main() for the harnesses without libFuzzer (any compiler):
 * runs LLVMFuzzerTestOneInput() once on every file named on the command line
 * and on every regular file of every directory named (not recursive, in
 * name order), as the libFuzzer binary does with -runs=0. Used by the
 * 'fuzz/<harness>-replay' tests on the ASan+UBSan build to replay the seed
 * and regression corpus. Exit 0 when every input ran (a crash aborts). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_env.h"

#define REPLAY_MAX_INPUT (1u << 20)

static int replay_file(const char *path, unsigned *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(REPLAY_MAX_INPUT);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX_INPUT, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	(*count)++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (rc == 0 &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = replay_file(path, count);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if ((S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count)
					 : replay_file(argv[i], &count)) != 0)
			return 1;
	}
	if (count == 0) {
		fprintf(stderr, "replay: no input\n");
		return 1;
	}
	printf("replay: %u inputs ran\n", count);
	return 0;
}
