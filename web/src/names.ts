/** A contact's name as a person reads it ("Rosa Díaz"), or "" when the lead gave none. */
export function fullName(contact: { firstName: string | null; lastName: string | null }): string {
  return [contact.firstName, contact.lastName].filter(Boolean).join(" ");
}
