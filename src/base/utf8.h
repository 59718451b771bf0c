/*
 * Text from outside (a tool's last words, a command line, a host name)
 * on its way into the results: JSON holds UTF-8 only, and jansson refuses
 * anything else. Each byte that does not belong to a valid sequence
 * becomes U+FFFD, as Python's errors='replace' does.
 */
#ifndef TRACETAX_UTF8_H
#define TRACETAX_UTF8_H

#include <stdbool.h>
#include <stddef.h>

bool utf8_valid(const char *s);
/* @s in place, in its buffer of @cap bytes: cut at a character, never mid-way. */
void utf8_scrub(char *s, size_t cap);
/* A valid copy of @s (malloc'd). */
char *utf8_scrubbed(const char *s);

#endif
