/*
 * libFuzzer harness of the results document reader (make fuzz): any
 * bytes go to doc_parse(); what it accepts goes where show, export and
 * compare take it (the table, CSV, Markdown, the document again, a
 * comparison with itself). A refusal must be one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/out.h"
#include "doc/read.h"
#include "doc/write.h"
#include "output/export.h"
#include "output/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct doc d;
	char err[512], *text = malloc(size + 1), *again;
	struct cmp c;
	int reps = 0;

	if (!null)
		null = fopen("/dev/null", "w");
	if (!text || !null)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "fuzz");
	if (doc_parse(&d, text, size, err, sizeof(err))) {
		if (strchr(err, '\n') || !strstr(err, "'fuzz'"))
			abort();
		doc_release(&d);
		return 0;
	}
	output_table(&d.r, null, true);
	output_csv(&d.r, null);
	output_markdown(&d.r, null);
	again = output_json_string(&d.r);
	free(again);
	for (int i = 0; i < d.r.ncells; i++)
		reps += d.r.cells[i].nreps;
	if (reps <= 64) {
		compare_runs(&d.r, &d.r, 5, &c);
		compare_release(&c);
	}
	compare_print_env(null, &d, &d, &(struct cmp_style){ "", "", "", "", "", "" });
	doc_release(&d);
	return 0;
}
