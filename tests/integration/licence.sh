#!/bin/bash
# SPDX-License-Identifier: ISC
# licence - the ISC licence is there, and every file of the tree names it
# (an SPDX line in its first three lines); the seed corpora of the fuzzers
# are data, not source, and are left out, and so is debian/changelog,
# whose format allows no comment.
set -u
cd "$(dirname "$0")/../.."

if grep -q '^ISC License' LICENSE 2>/dev/null &&
	grep -q 'The pingsock authors' LICENSE; then
	echo "PASS: licence: LICENSE is the ISC licence of The pingsock authors"
else
	echo "FAIL: licence: LICENSE missing or not the ISC licence"
fi

if ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP: licence: spdx: not a git checkout"
	exit 0
fi
missing=()
while IFS= read -r -d '' f; do
	case $f in
	tests/fuzz/corpus/*|.gitignore|LICENSE) continue ;;
	# Its format has no comment: dpkg-parsechangelog takes the first
	# line for the first entry's heading (debian/copyright names the
	# licence of the whole tree, debian/ included).
	debian/changelog) continue ;;
	esac
	[ -f "$f" ] || continue
	head -n 3 -- "$f" | grep -q 'SPDX-License-Identifier: ISC' ||
		missing+=("$f")
done < <(git ls-files -z)
if [ ${#missing[@]} -eq 0 ]; then
	echo "PASS: licence: every tracked file has an SPDX line"
else
	echo "FAIL: licence: no SPDX line in ${#missing[@]} files: ${missing[*]:0:10}"
fi
