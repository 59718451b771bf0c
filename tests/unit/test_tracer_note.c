/* tracer_note and tracer_note_set: what a cell's note says, once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tracers/tracer.h"

/* A repeated text is said once. */
static void test_note_once(void **state)
{
	struct tracer t = { 0 };

	(void)state;
	tracer_note(&t, "a");
	tracer_note(&t, "b");
	tracer_note(&t, "a");
	assert_string_equal(t.note, "a; b");
}

/* A figure that grows over a cell's runs is one part, updated in place. */
static void test_note_set(void **state)
{
	struct tracer t = { 0 };

	(void)state;
	tracer_note_set(&t, "waited", "waited in %d runs", 1);
	assert_string_equal(t.note, "waited in 1 runs");
	tracer_note(&t, "other");
	tracer_note_set(&t, "waited", "waited in %d runs", 2);
	assert_string_equal(t.note, "waited in 2 runs; other");
	tracer_note_set(&t, "other", "other, now longer");
	assert_string_equal(t.note, "waited in 2 runs; other, now longer");
	/* a prefix inside another part is not that part */
	tracer_note(&t, "not waited");
	tracer_note_set(&t, "waited", "waited in %d runs", 3);
	assert_string_equal(t.note, "waited in 3 runs; other, now longer; not waited");
	memset(&t, 0, sizeof(t));
	tracer_note(&t, "x not waited");
	tracer_note_set(&t, "waited", "waited in %d runs", 4);
	assert_string_equal(t.note, "x not waited; waited in 4 runs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_once),
		cmocka_unit_test(test_note_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
