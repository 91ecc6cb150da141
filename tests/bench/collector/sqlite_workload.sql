-- The real-program benchmark's workload (bench_collector.sh): sqlite3 builds, indexes and
-- queries a 200,000-row table in memory.
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
  INSERT INTO t SELECT x, 'name' || x, x * 1.5 FROM c;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(value) FROM t WHERE name LIKE 'name1%';
SELECT name FROM t ORDER BY value DESC LIMIT 5;
SELECT count(DISTINCT substr(name, 1, 6)) FROM t;
UPDATE t SET name = name || '-x' WHERE id % 3 = 0;
DELETE FROM t WHERE id % 5 = 0;
SELECT count(*) FROM t;
