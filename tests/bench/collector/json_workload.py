# SPDX-License-Identifier: MIT
# The real-program benchmark's Python workload (bench_collector.sh): builds 200,000 small
# dicts and round-trips them through json, 3 rounds. Every dict, string and float is an
# allocation the interpreter makes from many different call stacks.
import json

for round_number in range(3):
    rows = [
        {"id": i, "name": "name%d" % i, "value": i * 1.5, "tags": ["a", str(i % 7)]}
        for i in range(200_000)
    ]
    text = json.dumps(rows)
    back = json.loads(text)
    assert len(back) == len(rows) and back[-1]["name"] == rows[-1]["name"]
