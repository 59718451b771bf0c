/*
 * The report's page and charts as a reader sees them: a label never runs
 * past the chart's right edge (its figures, "· 0 lost", always show,
 * however long the tracer's name), and the page uses a laptop's width.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_results.h"
#include "report/report.h"

/* The chart's width in user units, from its viewBox. */
static int view_width(const char *svg)
{
	const char *v = strstr(svg, "viewBox=\"0 0 ");

	assert_non_null(v);
	return atoi(v + 13);
}

/* Characters a reader sees in @s up to @end: tags left out, an entity one character. */
static int visible(const char *s, const char *end, char *text, size_t len)
{
	int n = 0;
	size_t o = 0;

	while (s < end) {
		if (*s == '<') {
			s = strchr(s, '>') + 1;
			continue;
		}
		if (*s == '&')
			s = strchr(s, ';');
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
		if (o + 1 < len)
			text[o++] = *s;
		s++;
	}
	text[o] = '\0';
	return n;
}

static void test_labels_fit(void **state)
{
	struct results r;
	char *buf = NULL, text[8192], name[600];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rows = 0, width;

	(void)state;
	fake_results(&r, 4, 0);
	/* a cmd: template of 300 characters, and a multi-byte one */
	snprintf(name, sizeof(name), "cmd:'bpftrace -e \"%0300d\"'", 0);
	snprintf(r.cells[1].tracer, sizeof(r.cells[1].tracer), "%s", name);
	snprintf(r.cells[0].tracer, sizeof(r.cells[0].tracer), "none/%s", "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé");
	assert_non_null(f);
	svg_overhead(f, &r);
	fclose(f);
	width = view_width(buf);
	for (const char *p = strstr(buf, "class=\"name\">"); p; p = strstr(p + 1, "class=\"name\">")) {
		const char *start = p + 13, *end = strstr(start, "</text>");
		/* 13 px system-ui: a digit is 7.2 units, the widest common character */
		int n = visible(start, end, text, sizeof(text));

		if (n * 7.2 > width - 24)
			fail_msg("label of %d characters passes a chart %d units wide: %s", n, width, text);
		if (!strstr(text, " · 0 lost"))
			fail_msg("label lost its figures: %s", text);
		rows++;
	}
	assert_int_equal(rows, 2);
	assert_non_null(strstr(buf, "cmd:&#39;bpftrace -e &quot;000"));
	assert_non_null(strstr(buf, "…"));
	free(buf);
	results_release(&r);
}

/* A 1366 px window: the page is not held to a narrow column. */
static void test_page_width(void **state)
{
	struct doc d;
	char *buf = NULL;
	const char *m;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	memset(&d, 0, sizeof(d));
	fake_results(&d.r, 4, 0);
	snprintf(d.name, sizeof(d.name), "fake.json");
	assert_non_null(f);
	assert_int_equal(report_html(f, &d, 1), 0);
	fclose(f);
	m = strstr(buf, "main{max-width:");
	assert_non_null(m);
	/* at least 90% of 1366 px, in rem of 16 px */
	if (atof(m + 15) * 16 < 0.9 * 1366)
		fail_msg("the page is at most %.0f px wide", atof(m + 15) * 16);
	free(buf);
	results_release(&d.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_fit),
		cmocka_unit_test(test_page_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
