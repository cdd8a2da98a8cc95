// Scenarios of a teacher's own, as the lab would be given them, for the lab's tests.

/**
 * Alice writes and is parked as Bob writes and commits; then she reads again, which the
 * browser refuses: a replay of her transaction could read Bob's commit.
 */
export const goesOnSource = `title: A parked transaction goes on
summary: Alice writes, Bob writes and commits, Alice reads again.
lesson: A parked transaction goes on only while nothing committed since it began.
sessions:
  - name: alice
  - name: bob
setup: CREATE TABLE t (id int); INSERT INTO t VALUES (1);
teardown: DROP TABLE t;
choices:
  - id: alice-reads
    label: Whether Alice reads again
    options:
      - { value: 'no', label: She commits }
      - { value: 'yes', label: She reads again }
steps:
  - session: alice
    sql: BEGIN; UPDATE t SET id = 2;
    say: Alice writes, in a transaction she keeps open.
  - session: bob
    sql: INSERT INTO t VALUES (5) RETURNING id;
    say: Bob writes, and his statement commits.
    claims:
      - says: Bob adds row 5
        rows: { equals: [[5]] }
      - says: Bob adds row 6 (wrong on purpose)
        when: { alice-reads: 'no' }
        rows: { equals: [[6]] }
  - session: alice
    when: { alice-reads: 'yes' }
    sql: SELECT id FROM t;
    say: Alice reads in her open transaction.
  - session: alice
    sql: COMMIT;
    say: Alice commits.
`;
