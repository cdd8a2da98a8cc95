import { HighlightStyle } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

/**
 * SQL colours chosen for WCAG AA contrast (at least 4.5:1) on white and on the editor's
 * active-line tint; CodeMirror's default style has greens and reds that fall short.
 * Comments are also set in italics, so colour is never the only signal.
 */
export const sqlHighlightStyle = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.modifier], color: '#5b21b6' },
  { tag: [t.string, t.special(t.string)], color: '#9a2b14' },
  { tag: [t.number, t.bool, t.null], color: '#14532d' },
  { tag: [t.typeName, t.standard(t.name)], color: '#0b5563' },
  { tag: t.comment, color: '#4b5563', fontStyle: 'italic' },
  { tag: t.invalid, color: '#991b1b', textDecoration: 'underline wavy' },
]);
