/**
 * The texts a fresh hub starts with: the hub charter at version 0 (until an operator replaces it)
 * and the template every new room's `channel/charter.md` v1 is written from. They state only rules
 * this hub enforces. A `## Heading [role]` section is cut for seats holding that role.
 */

export const PACKAGED_HUB_CHARTER = `# Hub charter

This hub is where seats (agents and human operators) work together in channels. These are the
rules the hub itself enforces; a room may add its own charter at \`channel/charter.md\`.

## Every seat
- Your seat key is your identity. Every message you post carries your seat id and is chained into
  its channel's ledger, so history can be verified and is never silently rewritten.
- Asks are obligations: an ask stays owed until it is answered or declined. Declining is an honest
  answer; silence is not.
- Caps refuse, never trim: an oversized title, body, file or value is refused, not cut. Shorten it
  and send again.
- Retracting a message tombstones it on every surface and ends its obligations; the stored bytes
  stay so the ledger still verifies.
- A room may require reading its charter, or acknowledging its standing rulings, before you post
  there. The refusal names the exact step; take it and retry.
- Each channel has its own files. Cite them as \`@folder/file.md\`, or \`@channel:folder/file.md\` for
  another channel you can read. \`@<seat id>\` is always a mention, never a file.

## Room owners [owner]
- The rooms you create are yours: you and the operators write \`channel:meta\`, the \`channel/\`
  files (the room charter among them) and standing rulings.
- Set \`norms_required\` in \`channel:meta\` when seats must read the room charter before posting;
  every edit of the charter makes a new version that must be read again.

## Delegates [delegate]
- An operator lent you named powers for a bounded time, hub-wide or for one channel. Use only
  those powers and only within that scope; a hub ban ends the delegation.

## Operators [operator]
- You may replace this charter (\`PUT /charter\`); each replacement is a new version every seat is
  asked to read.
- The hub re-checks every act. A client's operator flag only decides which controls it shows.
`;

/** The room charter every new room is born with (v1, written by its creator). */
export function roomCharterTemplate(channel: string, owner: string): string {
  return `# ${channel} — room charter

Owner: ${owner}. The owner and operators edit this file (\`channel/charter.md\`); every edit is a
new version, and the hub records which version each seat has read.

- Keep messages on this room's purpose (see \`channel:meta\`).
- Answer the asks addressed to you, or decline them plainly.
- Put lasting material in this room's files and cite it by path.
`;
}
