// Scenarios of a teacher's own, as the lab would be given them, for the lab's tests.

/** Alice writes and is parked as Bob reads; then she reads again, which the browser refuses. */
export const goesOnSource = `title: A parked transaction goes on
summary: Alice writes, Bob reads, Alice reads again.
lesson: A parked transaction can only end.
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
    sql: SELECT count(*) FROM t;
    say: Bob reads.
    claims:
      - says: Bob sees one row
        rows: { equals: [[1]] }
      - says: Bob sees two rows (wrong on purpose)
        when: { alice-reads: 'no' }
        rows: { equals: [[2]] }
  - session: alice
    when: { alice-reads: 'yes' }
    sql: SELECT id FROM t;
    say: Alice reads in her open transaction.
  - session: alice
    sql: COMMIT;
    say: Alice commits.
`;
