// The errors the layer's guard raises inside PostgreSQL (the event triggers of
// sim-schema.ts), read back as the refusals they stand for.
import type { PgErrorFields } from '../../types';

/** A guard's error as a refusal's kind and details, or null for any other error. */
export function guardRefusal(
  error: PgErrorFields,
  inBlock: boolean,
): { kind: 'layer-schema' | 'shadows-catalog'; what: string; stopped: string } | null {
  if (error.message !== 'seat-ledger guard') return null;
  const stopped = inBlock
    ? ' (PostgreSQL stopped the statement, which aborted the transaction block it was in: ' +
      'ROLLBACK ends it)'
    : ' (PostgreSQL stopped the statement)';
  if (error.code === 'SL001') {
    const what = !error.detail || error.detail === 'sim' ? 'the sim schema' : error.detail;
    return { kind: 'layer-schema', what, stopped };
  }
  if (error.code === 'SL002') return { kind: 'shadows-catalog', what: error.detail ?? '', stopped };
  return null;
}
