/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shell.h: the interactive tree shell (shell.c, shell_tree.c). */
#ifndef UT_CLI_SHELL_H
#define UT_CLI_SHELL_H

#include "cli/cli.h"

/* Read commands until exit/EOF; returns the exit status of the last
 * command (0 after "exit"). */
int shell_main(struct cli *c);

#endif
