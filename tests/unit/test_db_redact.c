/*
 * What may be printed of a PostgreSQL connection string (db_redact):
 * nothing of a password, as libpq would read it, whatever characters it
 * holds; everything else as the user wrote it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "store/db.h"

static void check(const char *in, const char *want)
{
	char buf[512];

	db_redact(in, buf, sizeof(buf));
	if (strcmp(buf, want))
		fail_msg("db_redact(\"%s\") = \"%s\", want \"%s\"", in, buf, want);
	/* whatever else, no trace of a secret */
	if (strstr(buf, "s3c") || strstr(buf, "ret") || strstr(buf, "pa%3Fss"))
		fail_msg("db_redact(\"%s\") = \"%s\" shows the password", in, buf);
}

static void test_uri(void **state)
{
	(void)state;
	check("postgresql://u:s3cret@db.example/tt", "postgresql://u@db.example/tt");
	check("postgres://u:s3cret@db:5432/tt?sslmode=require", "postgres://u@db:5432/tt?sslmode=require");
	/* libpq: the userinfo runs to the first '@' before any '/': '?' is the password's */
	check("postgresql://u:s3c?ret@db/tt", "postgresql://u@db/tt");
	check("postgresql://u:s3c?ret@db", "postgresql://u@db");
	check("postgresql://u:s3c?r=et&x@db/tt?sslmode=disable", "postgresql://u@db/tt?sslmode=disable");
	/* percent-encoded, as libpq wants '@': and raw, which libpq misreads: hidden both */
	check("postgresql://u:s3c%40ret@db/tt", "postgresql://u@db/tt");
	check("postgresql://u:s3c@ret@db/tt", "postgresql://u@db/tt");
	check("postgresql://u:s3c/ret@db/tt", "postgresql://u@db/tt");
	/* a user alone, an empty password, no userinfo */
	check("postgresql://alice@db/tt", "postgresql://alice@db/tt");
	check("postgresql://alice:@db/tt", "postgresql://alice@db/tt");
	check("postgresql://db/tt", "postgresql://db/tt");
	check("postgresql:///tt?host=/run/postgresql", "postgresql:///tt?host=/run/postgresql");
	/* an '@' in a parameter is no userinfo */
	check("postgresql://db:5432/tt?application_name=a@b", "postgresql://db:5432/tt?application_name=a@b");
	/* parameters: password and sslpassword go, also percent-encoded names */
	check("postgresql://u@db/tt?password=s3cret", "postgresql://u@db/tt");
	check("postgresql://u@db/tt?x=1&password=s3cret&y=2", "postgresql://u@db/tt?x=1&y=2");
	check("postgresql://u@db/tt?pass%77ord=s3cret&y=2", "postgresql://u@db/tt?y=2");
	check("postgresql://u@db/tt?sslpassword=s3cret", "postgresql://u@db/tt");
	check("postgresql://u:s3cret@/tt?host=/tmp/pg&password=s3cret", "postgresql://u@/tt?host=/tmp/pg");
	/* a name that only starts like it is kept */
	check("postgresql://u@db/tt?passwordless=1", "postgresql://u@db/tt?passwordless=1");
}

static void test_conninfo(void **state)
{
	(void)state;
	check("host=db password=s3cret dbname=tt", "host=db dbname=tt");
	check("host=db password = s3cret dbname=tt", "host=db dbname=tt");
	check("password='s3c ret' host=db", "host=db");
	check("host=db password='s3c\\' ret' dbname=tt", "host=db dbname=tt");
	check("host=db password=s3c\\ ret dbname=tt", "host=db dbname=tt");
	check("host=db sslpassword=s3cret", "host=db");
	check("host=db user=alice", "host=db user=alice");
	/* a path is printed as it is, also one with a '=' (its words are no libpq keywords) */
	check("/var/lib/tracetax/results.db", "/var/lib/tracetax/results.db");
	check("/tmp/a=b/results.db", "/tmp/a=b/results.db");
}

/* Which store a --store names: PostgreSQL for a URI or a conninfo string, else a SQLite file. */
static void test_is_pg(void **state)
{
	(void)state;
	assert_true(db_is_pg("postgresql://u@db/tt"));
	assert_true(db_is_pg("postgres:///tt?host=/run/postgresql"));
	assert_true(db_is_pg("host=db password=s3cret dbname=tt"));
	assert_true(db_is_pg("dbname = tt"));
	assert_false(db_is_pg("results.db"));
	assert_false(db_is_pg("/tmp/a=b/results.db"));
	assert_false(db_is_pg("frob=1 results.db"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri),
		cmocka_unit_test(test_conninfo),
		cmocka_unit_test(test_is_pg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
