/**
 * What a demo could not use of its page's address (`?workers=abc`), one sentence each;
 * the demo goes on with its defaults.
 */
export function AddressProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="address-problems" role="note">
      <p>Some settings in the address were not used:</p>
      <ul>
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}
