import { HighlightStyle } from '@codemirror/language';
import { EditorView } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

/**
 * SQL colours from the site's theme (`--sql-*` in site.css), each chosen for WCAG AA
 * contrast (at least 4.5:1) on the editor's ground and on its active-line tint, in both
 * themes; CodeMirror's default style has greens and reds that fall short. Comments are
 * also set in italics, so colour is never the only signal.
 */
export const sqlHighlightStyle = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.modifier], color: 'var(--sql-keyword)' },
  { tag: [t.string, t.special(t.string)], color: 'var(--sql-string)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--sql-number)' },
  { tag: [t.typeName, t.standard(t.name)], color: 'var(--sql-type)' },
  { tag: t.comment, color: 'var(--sql-comment)', fontStyle: 'italic' },
  { tag: t.invalid, color: 'var(--sql-invalid)', textDecoration: 'underline wavy' },
]);

/**
 * The editor's own colours (cursor, selection, active line, matching bracket) from the
 * site's theme: CodeMirror's built-in ones are fixed for a light or a dark page, and the
 * page may switch between the two while the editor is open.
 */
export const editorTheme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--background)' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '.cm-activeLine': { backgroundColor: 'var(--editor-active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--editor-active-line)' },
  '.cm-selectionBackground, &.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground':
    { backgroundColor: 'var(--editor-selection)' },
  '.cm-content ::selection': { backgroundColor: 'var(--editor-selection)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--editor-bracket)' },
  '&.cm-focused .cm-nonmatchingBracket': { backgroundColor: 'var(--error-surface)' },
});
