/** A file input's chosen file, read as text; the input is cleared so choosing the same file again fires `change` again. */
export async function pickedText(e: Event): Promise<{ name: string; text: string } | undefined> {
  const input = e.target as HTMLInputElement
  const file = input.files?.[0]
  if (!file) return undefined
  const text = await file.text()
  input.value = ''
  return { name: file.name, text }
}
