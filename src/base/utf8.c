/* Invalid UTF-8 replaced (utf8.h): RFC 3629, no overlongs, surrogates or past U+10FFFF. */
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

static const char fffd[] = "\xef\xbf\xbd";

/* Bytes of the valid sequence at @p, 0 when it starts none. */
static size_t seq_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlongs, surrogates, > U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n)
		if (!(n = seq_len(p)))
			return false;
	return true;
}

char *utf8_scrubbed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(3 * strlen(s) + 1), *o = out;
	size_t n;

	if (!out)
		die("out of memory");
	for (; *p; p += n) {
		n = seq_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			memcpy(o, fffd, 3);
			o += 3;
			n = 1;
		}
	}
	*o = '\0';
	return out;
}

void utf8_scrub(char *s, size_t cap)
{
	char *v;
	size_t len = 0, n;

	if (!cap || utf8_valid(s))
		return;
	v = utf8_scrubbed(s);
	for (; v[len] && len + (n = seq_len((unsigned char *)v + len)) < cap; len += n)
		;
	memcpy(s, v, len);
	s[len] = '\0';
	free(v);
}
