// The Trash view of the operator console (docs/design/0449-operator-console.md).
const $ = id => document.getElementById(id);

/** Once, when the page loads: {@code getMe()} the signed-in caller or null; {@code redraw()} refreshes the shown view. */
export function setup(getMe, redraw) {}

/** Redraws the view for {@code me} (the whoami answer); throws the ApiError of a failed call. */
export async function refresh(me, redraw) {
  $('trash-status').textContent = 'Not built yet.';
}

/** On sign-out: removes everything the view drew or kept. */
export function forget() {
  $('trash-body').replaceChildren();
  $('trash-status').textContent = '';
}
