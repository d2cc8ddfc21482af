import type { ComponentChildren } from "preact";
import { useStateResetBy } from "./useStateResetBy";

/**
 * A checkbox saved to the API as it changes. It shows the value asked for at once and keeps it until the saved value
 * comes back in `checked` (a checkbox bound only to the stored value flips back while the save and the reload run);
 * a refused save (`save` answers false) shows the stored value again.
 */
export function SavedToggle({
  checked,
  save,
  children,
}: {
  checked: boolean;
  save: (next: boolean) => Promise<boolean>;
  children: ComponentChildren;
}) {
  const [asked, setAsked] = useStateResetBy<boolean | null>(null, checked);
  const shown = asked ?? checked;
  return (
    <label>
      <input
        type="checkbox"
        checked={shown}
        onChange={async () => {
          setAsked(!shown);
          if (!(await save(!shown))) setAsked(null);
        }}
      />
      {children}
    </label>
  );
}
