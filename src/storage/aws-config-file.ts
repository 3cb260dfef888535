/**
 * The INI format of AWS's shared files, `~/.aws/credentials` and `~/.aws/config`, as the AWS CLI
 * and SDKs read it. Pure text in, sections out, so it runs anywhere; reading the files is the
 * CLI's job (src/cli/aws-credentials.ts).
 *
 * The format: `[section]` headers; `key = value` lines (also `key: value`; split at the first
 * delimiter, since session tokens end in '='); keys case-insensitive; whole-line comments start
 * with '#' or ';', and a '#' or ';' after whitespace starts a comment at the end of a line (no
 * key or secret holds whitespace); `key =` with nothing after it opens a sub-section whose keys
 * are the indented lines below it (`s3 =` / `  endpoint_url = …`), read as `s3.endpoint_url`.
 * A later value of a key, or a repeated section, overrides an earlier one.
 *
 * Reference: https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html
 */

/** Section name (whitespace collapsed) → key (lowercase; `parent.key` in sub-sections) → value. */
export type IniSections = Record<string, Record<string, string>>

/**
 * Parses the text of an AWS shared file. Errors name `file` and the line number but never quote
 * the line: it may hold a secret.
 *
 * @throws Error for a line that is neither a section, a setting nor a comment, or a setting
 *   before any section
 */
export function parseAwsIni(text: string, file: string): IniSections {
  const sections: IniSections = Object.create(null)
  let section: Record<string, string> | undefined
  let parent: string | undefined
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
  lines.forEach((raw, i) => {
    const where = `${file}:${i + 1}`
    const line = withoutComment(raw).trim()
    if (line === '') return
    const header = /^\[([^\]]*)\]$/.exec(line)
    if (header) {
      const name = header[1].trim().replace(/\s+/g, ' ')
      if (name === '') throw new Error(`${where}: empty section name`)
      section = sections[name] ??= Object.create(null)
      parent = undefined
      return
    }
    const at = line.search(/[=:]/)
    if (at <= 0) throw new Error(`${where}: expected '[section]' or 'key = value'`)
    const key = line.slice(0, at).trim().toLowerCase()
    const value = line.slice(at + 1).trim()
    // Only a key this reader knows is named: a secret pasted above the first section reads as a key.
    if (!section) throw new Error(`${where}: ${knownKey(key)} comes before any [section]`)
    const indented = /^\s/.test(raw)
    if (!indented) parent = undefined
    if (value === '' && !indented) {
      parent = key
      return
    }
    section[parent ? `${parent}.${key}` : key] = value
  })
  return sections
}

/** Settings named in errors; any other key is text of the file that may be a secret. */
const KNOWN_KEYS = new Set([
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'aws_security_token',
  'region',
  'endpoint_url',
  'output',
  'role_arn',
  'source_profile',
  'sso_session',
  'credential_process',
])

/** "setting 'region'" for a key above, "a setting" for any other. */
function knownKey(key: string): string {
  return KNOWN_KEYS.has(key) ? `setting '${key}'` : 'a setting'
}

/** A line without its comment: whole-line '#'/';', or '#'/';' after whitespace. */
function withoutComment(line: string): string {
  if (/^\s*[#;]/.test(line)) return ''
  const at = line.search(/\s[#;]/)
  return at < 0 ? line : line.slice(0, at)
}

/**
 * A profile's settings: in the credentials file its section is `[name]`; in the config file
 * `[profile name]`, or `[default]` (also `[profile default]`) for the default profile.
 */
export function profileSettings(
  sections: IniSections,
  profile: string,
  kind: 'credentials' | 'config',
): Record<string, string> | undefined {
  if (kind === 'credentials') return sections[profile]
  if (profile === 'default') return sections.default ?? sections['profile default']
  return sections[`profile ${profile}`]
}

/** The profile names a file defines (for "profile x is not there; there are: …" messages). */
export function profileNames(sections: IniSections, kind: 'credentials' | 'config'): string[] {
  const names = Object.keys(sections)
  if (kind === 'credentials') return names
  return names.flatMap(n => (n === 'default' ? [n] : n.startsWith('profile ') ? [n.slice(8)] : []))
}
