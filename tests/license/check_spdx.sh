#!/bin/bash
# SPDX-License-Identifier: MIT
# Every source file of the project says its license in a machine-readable line,
# "SPDX-License-Identifier: MIT", in a comment: on its first line (its second after a
# "#!" line), or on its last for the programs whose line numbers the tests and the docs
# name (the fixtures and the example), which keep their lines. A file without it fails,
# named with the line to add.
# Usage: check_spdx.sh SOURCE_DIR
set -u
root=${1:?usage: check_spdx.sh SOURCE_DIR}
cd "$root" || exit 2
tag='SPDX-License-Identifier: MIT'
missing=0
while IFS= read -r -d '' file; do
    case "$file" in
        */fixtures/* | */example/*) place=$(tail -n 1 "$file") where="last line" ;;
        *) place=$(head -n 2 "$file") where="first line (second after #!)" ;;
    esac
    if ! grep -qF "$tag" <<<"$place"; then
        echo "$file: no '$tag' comment on its $where"
        missing=1
    fi
done < <(find .ci cmake libmemusage memusage memusagestat tests CMakeLists.txt eslint.config.mjs \
    -type d -name node_modules -prune -o -type f \
    \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.mjs' -o -name '*.js' -o -name '*.sh' \
    -o -name '*.cmake' -o -name '*.py' -o -name CMakeLists.txt -o -path '.ci/*' -o -path 'cmake/debian/p*' \) -print0)
exit "$missing"
