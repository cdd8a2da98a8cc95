// The scenario's YAML in an editor with line numbers; lines with a problem are marked, and
// the lab can replace the text (undoable with Ctrl+Z) or move the cursor to a line.
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { EditorState, StateEffect, StateField, type Range } from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  keymap,
  lineNumbers,
  type DecorationSet,
} from '@codemirror/view';
import { editorTheme } from '../sql-highlight';

/** What the lab may do to the editor. */
export interface SourceEditorApi {
  /** Replaces the whole text, as one change the reader can undo. */
  replace(text: string): void;
  /** Puts the cursor at the start of `line` (from 1) and the focus in the editor. */
  goTo(line: number): void;
}

const setProblemLines = StateEffect.define<number[]>();

/** The marked lines: a line decoration on each line with a problem. */
const problemLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setProblemLines)) continue;
      const doc = tr.state.doc;
      const ranges: Range<Decoration>[] = [...new Set(effect.value)]
        .filter((n) => n >= 1 && n <= doc.lines)
        .sort((a, b) => a - b)
        .map((n) => problemLine.range(doc.line(n).from));
      next = Decoration.set(ranges);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

const problemLine = Decoration.line({ class: 'cm-problem-line' });

export function SourceEditor({
  initial,
  onChange,
  lines,
  describedBy,
  ref,
}: {
  initial: string;
  onChange: (text: string) => void;
  /** The lines to mark as having a problem. */
  lines: number[];
  describedBy: string;
  ref: Ref<SourceEditorApi>;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);
  const initialRef = useRef(initial);

  useEffect(() => {
    const parent = parentRef.current;
    if (!parent) return;
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc: initialRef.current,
        extensions: [
          lineNumbers(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          problemLines,
          editorTheme,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            'aria-label': 'Scenario (YAML)',
            'aria-describedby': describedBy,
          }),
          // Tab is left alone on purpose, so it moves focus out of the editor.
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChangeRef.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    viewRef.current = view;
    return () => {
      view.destroy();
      viewRef.current = null;
    };
  }, [describedBy]);

  useEffect(() => {
    viewRef.current?.dispatch({ effects: setProblemLines.of(lines) });
  }, [lines]);

  useImperativeHandle(
    ref,
    () => ({
      replace(text: string) {
        const view = viewRef.current;
        if (!view) return;
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      },
      goTo(line: number) {
        const view = viewRef.current;
        if (!view) return;
        const at = view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines)).from;
        view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
        view.focus();
      },
    }),
    [],
  );

  return <div className="console-editor lab-editor" ref={parentRef} />;
}
