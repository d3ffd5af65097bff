#include "cli/shell.h"
int shell_main(struct cli *c)
{
	cli_errorf(c, "shell: not built yet");
	return CLI_EUSAGE;
}
