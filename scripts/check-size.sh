#!/usr/bin/env bash
# Checks the size rules: no Swift file over 500 lines, no function, initializer, accessor or closure-free body of
# a `func`/`init`/`deinit`/`subscript` over 80 lines, and no line of a Swift file under Sources/ over 120 columns
# (characters; swift-format wraps code there, but leaves comments and string literals to us). Default: every target
# under Sources/ (the library, the CLI, the engines, the server) and under Tests/ (the tests and their support); pass
# folders to check only those. Lines are counted from the declaration to its closing brace (doc comments not
# included).
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(Sources Tests)
python3 - "${dirs[@]}" <<'PY'
import os, re, sys

MAX_FILE, MAX_FUNC, MAX_COLUMNS = 500, 80, 120
decl = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|'
                  r'final|override|mutating|nonmutating|nonisolated|convenience|required|@\w+)\s+)*'
                  r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]')

def code_only(line):
    """The line without string literals and // comments (enough for brace counting)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split('//', 1)[0]

problems = []
for root in sys.argv[1:]:
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith('.swift'):
                continue
            path = os.path.join(folder, name)
            lines = open(path, encoding='utf-8').read().split('\n')
            if lines and lines[-1] == '':
                lines.pop()
            if len(lines) > MAX_FILE:
                problems.append(f'{path}: {len(lines)} lines (most {MAX_FILE})')
            if os.path.normpath(path).split(os.sep)[0] == 'Sources':
                problems += [f'{path}:{n}: {len(line)} columns (most {MAX_COLUMNS})'
                             for n, line in enumerate(lines, 1) if len(line) > MAX_COLUMNS]
            in_block_comment = False
            i = 0
            while i < len(lines):
                m = decl.match(lines[i])
                if not m or in_block_comment:
                    if '/*' in lines[i]: in_block_comment = True
                    if '*/' in lines[i]: in_block_comment = False
                    i += 1
                    continue
                depth, opened, j = 0, False, i
                while j < len(lines):
                    text = code_only(lines[j])
                    depth += text.count('{') - text.count('}')
                    opened = opened or '{' in text
                    if opened and depth <= 0:
                        break
                    if not opened and j > i and text.strip() == '':
                        break  # a protocol requirement: no body
                    j += 1
                length = j - i + 1
                if opened and length > MAX_FUNC:
                    problems.append(f'{path}:{i + 1}: {m.group(1)} is {length} lines (most {MAX_FUNC})')
                i += 1
for p in problems:
    print(p)
if problems:
    print(f'check-size: {len(problems)} over the limits', file=sys.stderr)
    sys.exit(1)
print('check-size: every file and function within the limits')
PY
