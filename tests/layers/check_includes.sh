#!/bin/bash
# SPDX-License-Identifier: MIT
# Checks every #include "..." of the product's sources (libmemusage/, memusagestat/,
# memusage/; not the tests) against layers.txt: an include that names a folder its own
# folder may not include from fails, with the file, the line and the rule.
# Usage: check_includes.sh SOURCE_DIR [RULES]
set -u
root=${1:?usage: check_includes.sh SOURCE_DIR [RULES]}
rules=$(realpath "${2:-$root/tests/layers/layers.txt}") || exit 2
cd "$root" || exit 2

declare -A allowed
while IFS= read -r line; do
    line=${line%%#*}
    [[ $line =~ ^[[:space:]]*$ ]] && continue
    folder=${line%%:*}
    folder=${folder//[[:space:]]/}
    read -ra names <<<"${line#*:}"
    allowed[$folder]=" ${names[*]} "
done <"$rules"

failures=0
fail() {
    echo "$1" >&2
    failures=$((failures + 1))
}

checked=0
while IFS= read -r file; do
    folder=$(dirname "$file")
    if [[ -z ${allowed[$folder]+set} ]]; then
        fail "$file: its folder $folder has no line in $rules (say what it may include)"
        continue
    fi
    own=$(basename "$folder")
    while IFS=: read -r number include; do
        checked=$((checked + 1))
        if [[ $include == */* ]]; then
            name=${include%%/*}
            [[ $name == "$own" ]] && continue
        else
            name=$include
            [[ -e $folder/$include ]] && continue
        fi
        [[ ${allowed[$folder]} == *" $name "* ]] && continue
        fail "$file:$number: includes \"$include\": $folder may include only from:${allowed[$folder]% }"
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
done < <(find libmemusage memusagestat memusage \( -name node_modules -prune \) -o \
    -type f \( -name '*.h' -o -name '*.c' -o -name '*.cpp' \) -print | sort)

if ((checked == 0)); then
    echo "no include found under $root: wrong source directory?" >&2
    exit 2
fi
if ((failures > 0)); then
    echo "$failures include(s) cross a layer the wrong way (rules: $rules)" >&2
    exit 1
fi
echo "$checked includes follow $rules"
