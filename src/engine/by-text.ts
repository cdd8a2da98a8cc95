/**
 * `compute`, a pure function of a statement's text, with its answers for the last `kept`
 * texts remembered. The session layer asks the same few questions of a statement many
 * times while it runs it (its guards, its checks, the run), and a page's workers send the
 * same statements over and over, so most answers are found rather than worked out again.
 * A text longer than `longest` (a pasted script) is worked out each time, not kept.
 * Answers are shared between callers, so their types should be read-only.
 */
export function byText<T>(
  compute: (text: string) => T,
  { kept = 64, longest = 4096 }: { kept?: number; longest?: number } = {},
): (text: string) => T {
  // A Map keeps insertion order: the first key is the oldest, which goes first when the
  // map is full. (Moving a key to the end at each use cost more than it saved.)
  const recent = new Map<string, T>();
  return (text) => {
    const known = recent.get(text);
    if (known !== undefined || recent.has(text)) return known as T;
    const answer = compute(text);
    if (text.length <= longest) {
      if (recent.size >= kept) recent.delete(recent.keys().next().value!);
      recent.set(text, answer);
    }
    return answer;
  };
}
