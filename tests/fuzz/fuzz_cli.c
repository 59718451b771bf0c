/*
 * libFuzzer harness of the option parsers (make fuzz): the input is an
 * argv, NUL separated; its first byte picks the command (run, or one of
 * the results commands). An error must be one line (unless an argument,
 * which messages quote, holds a line break); nothing may leak.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_results.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const commands[] = {
	"run", "history", "show", "compare", "export", "import", "report", "frob",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1], err[256] = "";
	int argc = 0, rc;
	bool quoted_break = false;

	if (size < 1)
		return 0;
	buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[argc++] = (char *)commands[data[0] % (sizeof(commands) / sizeof(commands[0]))];
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	for (int i = 0; i < argc; i++)
		quoted_break |= strpbrk(argv[i], "\n\r") != NULL;
	if (!strcmp(argv[0], "run")) {
		struct run_args a;

		rc = cli_parse_run(argc, argv, &a, err, sizeof(err));
		cli_release(&a);
	} else {
		struct results_args a;

		rc = cli_parse_results(argc, argv, &a, err, sizeof(err));
	}
	if (rc && (!err[0] || (strchr(err, '\n') && !quoted_break)))
		abort();
	free(buf);
	return 0;
}
