#!/bin/sh
# The Debian repositories apt fetches package lists from here for SUITE and
# its companions (SUITE-updates, SUITE-security), one 'URI RELEASE' a line,
# as apt itself reads its sources (one-line or deb822): the mirror a fresh
# root of SUITE is bootstrapped from, and the sources it is given, without
# naming any host in the tree. Prints nothing when apt has none.
#
# Usage: scripts/apt-suites.sh SUITE   (fresh-debian.sh, deb-root.sh)
set -eu
suite=${1:?usage: scripts/apt-suites.sh SUITE}
# shellcheck disable=SC2016
apt-get indextargets --format '$(TARGET_OF) $(IDENTIFIER) $(REPO_URI) $(RELEASE)' 2>/dev/null |
	awk -v s="$suite" '$1 == "deb" && $2 == "Packages" && ($4 == s || index($4, s "-") == 1) { print $3, $4 }' |
	sort -u
