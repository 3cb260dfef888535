/**
 * AWS credentials, region and S3 endpoint for the CLI, found where the AWS CLI and SDKs look:
 * the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
 * AWS_CREDENTIAL_EXPIRATION, AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 /
 * AWS_ENDPOINT_URL), then the profile (AWS_PROFILE, default 'default') in the shared credentials
 * file (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials) and the config file
 * (AWS_CONFIG_FILE, default ~/.aws/config). Keys in the environment win over the files, as
 * in the AWS CLI.
 *
 * The provider reads them again on every call, so credentials that a tool refreshes in the
 * environment's files (an SSO login, `aws configure export-credentials`) are picked up when the
 * resolver renews. Profiles that need a role, SSO or a credential process are refused by name.
 */
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseAwsIni, profileNames, profileSettings, type IniSections } from '../storage/aws-config-file.ts'
import type { AwsSettings, S3Credentials } from '../storage/types.ts'

/** The environment variables read here (process.env by default). */
export type AwsEnv = Record<string, string | undefined>

/** Profile settings that mean "credentials come from elsewhere", which this reader does not follow. */
const INDIRECT_KEYS = ['role_arn', 'sso_session', 'sso_start_url', 'credential_process', 'web_identity_token_file']

/**
 * Region, endpoint and a credential provider from `env` and the shared files under `home`.
 *
 * @throws Error naming the file and line when a shared file does not parse
 */
export async function awsSettings(env: AwsEnv = process.env, home = homedir()): Promise<AwsSettings> {
  const profile = env.AWS_PROFILE || 'default'
  const config = profileSettings((await readIni(configFile(env, home))) ?? {}, profile, 'config') ?? {}
  return {
    provider: () => readAwsCredentials(env, home),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || config.region || undefined,
    endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || config['s3.endpoint_url'] || config.endpoint_url,
    profile,
  }
}

/**
 * The credentials as of now: from the environment when AWS_ACCESS_KEY_ID is set, else from the
 * profile in the credentials file, else from the profile in the config file.
 *
 * @throws Error naming the variable, or the file and profile, that lacks what is needed (never
 *   quoting a value)
 */
export async function readAwsCredentials(env: AwsEnv = process.env, home = homedir()): Promise<S3Credentials> {
  if (env.AWS_ACCESS_KEY_ID) return fromEnvironment(env)
  const profile = env.AWS_PROFILE || 'default'
  const files = [
    { path: credentialsFile(env, home), kind: 'credentials' as const },
    { path: configFile(env, home), kind: 'config' as const },
  ]
  const notes: string[] = []
  for (const { path, kind } of files) {
    const sections = await readIni(path)
    const settings = sections && profileSettings(sections, profile, kind)
    if (!sections) notes.push(`${path} does not exist`)
    else if (!settings)
      notes.push(`${path} has no profile '${profile}' (it has: ${listed(profileNames(sections, kind))})`)
    else if (settings.aws_access_key_id || settings.aws_secret_access_key) return fromProfile(settings, path, profile)
    else {
      refuseIndirect(settings, path, profile)
      notes.push(`profile '${profile}' in ${path} has no aws_access_key_id`)
    }
  }
  throw new Error(`no AWS credentials: AWS_ACCESS_KEY_ID is not set; ${notes.join('; ')}`)
}

/**
 * The profile names for an error, leaving out any that does not look like one (over 64 characters,
 * or with `/`, `+`, `=`, spaces…): a key pasted between brackets is a secret, not a name.
 */
function listed(names: string[]): string {
  const shown = names.filter(n => /^[\w.@-]{1,64}$/.test(n))
  const hidden = names.length - shown.length
  const rest = hidden ? `${hidden} other section${hidden > 1 ? 's' : ''} not shown` : ''
  return [...shown, ...(rest ? [rest] : [])].join(', ') || 'none'
}

function fromEnvironment(env: AwsEnv): S3Credentials {
  if (!env.AWS_SECRET_ACCESS_KEY) throw new Error('AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not')
  const expires = env.AWS_CREDENTIAL_EXPIRATION
  const expiration = expires ? Date.parse(expires) : undefined
  if (expiration !== undefined && !Number.isFinite(expiration)) {
    throw new Error(`AWS_CREDENTIAL_EXPIRATION '${expires}' is not an ISO-8601 time`)
  }
  return {
    accessKeyId: env.AWS_ACCESS_KEY_ID!,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.AWS_SESSION_TOKEN || undefined,
    expiration,
  }
}

function fromProfile(settings: Record<string, string>, file: string, profile: string): S3Credentials {
  const accessKeyId = settings.aws_access_key_id
  const secretAccessKey = settings.aws_secret_access_key
  if (!accessKeyId || !secretAccessKey) {
    const missing = accessKeyId ? 'aws_secret_access_key' : 'aws_access_key_id'
    throw new Error(`profile '${profile}' in ${file} has no ${missing}`)
  }
  return {
    accessKeyId,
    secretAccessKey,
    // aws_security_token is the name older tools (boto 2) wrote.
    sessionToken: settings.aws_session_token || settings.aws_security_token || undefined,
  }
}

/** Refuses a profile whose credentials come from a role, SSO or a process, naming how to export them. */
function refuseIndirect(settings: Record<string, string>, file: string, profile: string): void {
  const indirect = INDIRECT_KEYS.find(k => settings[k] !== undefined)
  if (!indirect) return
  throw new Error(
    `profile '${profile}' in ${file} gets its credentials through ${indirect}, which snaptrain does not follow; ` +
      `export them first (aws configure export-credentials --profile ${profile} --format env)`,
  )
}

/** The parsed file, or undefined when it does not exist. */
async function readIni(path: string): Promise<IniSections | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`${path}: cannot read (${(error as Error).message})`)
  }
  return parseAwsIni(text, path)
}

function credentialsFile(env: AwsEnv, home: string): string {
  return expandHome(env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'), home)
}

function configFile(env: AwsEnv, home: string): string {
  return expandHome(env.AWS_CONFIG_FILE || join(home, '.aws', 'config'), home)
}

/** `~/x` as the AWS tools read it: under the home folder. */
function expandHome(path: string, home: string): string {
  return path === '~' ? home : /^~[/\\]/.test(path) ? join(home, path.slice(2)) : path
}
