import type { ReactNode } from 'react';

/**
 * A button that says it is unavailable (aria-disabled) instead of being disabled, so it
 * keeps the keyboard focus while a step runs.
 */
export function ActionButton({
  onClick,
  disabled = false,
  primary = false,
  keys,
  children,
}: {
  onClick: () => void;
  disabled?: boolean;
  primary?: boolean;
  keys?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={primary ? 'button-primary' : undefined}
      aria-disabled={disabled || undefined}
      aria-keyshortcuts={keys}
      onClick={() => {
        if (!disabled) onClick();
      }}
    >
      {children}
    </button>
  );
}
