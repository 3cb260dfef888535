import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { awsSettings, readAwsCredentials } from '../../../src/cli/aws-credentials.ts'
import { s3Access } from '../../../src/sources/s3/source.ts'

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
let home: string

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'snaptrain-aws-'))
  await mkdir(join(home, '.aws'))
})
afterEach(() => rm(home, { recursive: true, force: true }))

const credentialsFile = () => join(home, '.aws', 'credentials')
const configFile = () => join(home, '.aws', 'config')

async function message(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(Error)
  const text = (error as Error).message
  expect(text).not.toContain(SECRET)
  return text
}

describe('readAwsCredentials', () => {
  it('takes the environment first', async () => {
    await writeFile(credentialsFile(), '[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = x\n')
    const env = {
      AWS_ACCESS_KEY_ID: 'ASIAENV',
      AWS_SECRET_ACCESS_KEY: SECRET,
      AWS_SESSION_TOKEN: 'tok',
      AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z',
    }
    expect(await readAwsCredentials(env, home)).toEqual({
      accessKeyId: 'ASIAENV',
      secretAccessKey: SECRET,
      sessionToken: 'tok',
      expiration: Date.UTC(2030, 0, 1),
    })
  })

  it('names the missing variable', async () => {
    expect(await message(readAwsCredentials({ AWS_ACCESS_KEY_ID: 'A' }, home))).toBe(
      'AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not',
    )
    expect(
      await message(
        readAwsCredentials(
          { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: SECRET, AWS_CREDENTIAL_EXPIRATION: 'soon' },
          home,
        ),
      ),
    ).toMatch(/AWS_CREDENTIAL_EXPIRATION 'soon' is not an ISO-8601 time/)
  })

  it('reads the profile from the shared credentials file', async () => {
    await writeFile(
      credentialsFile(),
      `# keys\n[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = ${SECRET}\n\n` +
        '[dev]\naws_access_key_id=ASIADEV\naws_secret_access_key=dev/secret\naws_session_token=dev-token==\n',
    )
    expect(await readAwsCredentials({}, home)).toEqual({ accessKeyId: 'AKIADEFAULT', secretAccessKey: SECRET })
    expect(await readAwsCredentials({ AWS_PROFILE: 'dev' }, home)).toEqual({
      accessKeyId: 'ASIADEV',
      secretAccessKey: 'dev/secret',
      sessionToken: 'dev-token==',
    })
  })

  it('follows AWS_SHARED_CREDENTIALS_FILE, with ~ for the home folder', async () => {
    await writeFile(
      join(home, 'elsewhere'),
      `[default]\naws_access_key_id = AKIAX\naws_secret_access_key = ${SECRET}\n`,
    )
    const c = await readAwsCredentials({ AWS_SHARED_CREDENTIALS_FILE: '~/elsewhere' }, home)
    expect(c.accessKeyId).toBe('AKIAX')
  })

  it('falls back to keys in the config file', async () => {
    await writeFile(configFile(), `[profile ci]\naws_access_key_id = AKIACFG\naws_secret_access_key = ${SECRET}\n`)
    expect((await readAwsCredentials({ AWS_PROFILE: 'ci' }, home)).accessKeyId).toBe('AKIACFG')
  })

  it('names the file and profile that lack a key', async () => {
    await writeFile(
      credentialsFile(),
      `[default]\naws_access_key_id = AKIA\n[half]\naws_secret_access_key = ${SECRET}\n`,
    )
    expect(await message(readAwsCredentials({}, home))).toBe(
      `profile 'default' in ${credentialsFile()} has no aws_secret_access_key`,
    )
    expect(await message(readAwsCredentials({ AWS_PROFILE: 'half' }, home))).toBe(
      `profile 'half' in ${credentialsFile()} has no aws_access_key_id`,
    )
  })

  it('says where it looked when the profile is nowhere', async () => {
    await writeFile(credentialsFile(), '[default]\naws_access_key_id = A\naws_secret_access_key = B\n[dev]\n')
    expect(await message(readAwsCredentials({ AWS_PROFILE: 'prod' }, home))).toBe(
      `no AWS credentials: AWS_ACCESS_KEY_ID is not set; ${credentialsFile()} has no profile 'prod' (it has: default, dev); ` +
        `${configFile()} does not exist`,
    )
    expect(await message(readAwsCredentials({ AWS_PROFILE: 'dev' }, home))).toMatch(
      /profile 'dev' in .*credentials has no aws_access_key_id/,
    )
  })

  it('refuses profiles that need a role, SSO or a process, saying how to export them', async () => {
    await writeFile(configFile(), '[profile sso]\nsso_session = corp\nregion = eu-west-1\n')
    expect(await message(readAwsCredentials({ AWS_PROFILE: 'sso' }, home))).toMatch(
      /profile 'sso' in .*config gets its credentials through sso_session.*aws configure export-credentials --profile sso/,
    )
  })

  it('names the file and line of a file it cannot parse', async () => {
    await writeFile(credentialsFile(), `[default]\naws_access_key_id = A\n${SECRET}\n`)
    expect(await message(readAwsCredentials({}, home))).toBe(
      `${credentialsFile()}:3: expected '[section]' or 'key = value'`,
    )
  })

  it('never quotes a session token pasted above the first section, in any case', async () => {
    // A session token ends in '=', so its line reads as a key; the message must not name that key.
    const token = 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDexampleTOKEN+abc/def=='
    await writeFile(credentialsFile(), `${token}\n[default]\naws_access_key_id = A\naws_secret_access_key = B\n`)
    const text = await message(readAwsCredentials({}, home))
    expect(text).toBe(`${credentialsFile()}:1: a setting comes before any [section]`)
    expect(text.toLowerCase()).not.toContain(token.slice(0, 20).toLowerCase())
    await writeFile(credentialsFile(), `region = eu-west-1\n[default]\n`)
    expect(await message(readAwsCredentials({}, home))).toContain(":1: setting 'region' comes before any [section]")
  })

  it('leaves a key pasted between brackets out of the profiles it lists', async () => {
    await writeFile(credentialsFile(), `[default]\naws_access_key_id = A\naws_secret_access_key = B\n[${SECRET}]\n`)
    expect(await message(readAwsCredentials({ AWS_PROFILE: 'prod' }, home))).toContain(
      "has no profile 'prod' (it has: default, 1 other section not shown)",
    )
  })
})

describe('awsSettings', () => {
  it('reads region and endpoint from the environment first, then the profile', async () => {
    await writeFile(
      configFile(),
      '[default]\nregion = us-east-2\n[profile dev]\nregion = eu-west-1\ns3 =\n  endpoint_url = http://127.0.0.1:9000\n',
    )
    expect(await awsSettings({}, home)).toMatchObject({ region: 'us-east-2', endpoint: undefined, profile: 'default' })
    expect(await awsSettings({ AWS_PROFILE: 'dev' }, home)).toMatchObject({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
    })
    const env = { AWS_PROFILE: 'dev', AWS_DEFAULT_REGION: 'ap-south-1', AWS_ENDPOINT_URL: 'http://generic:1' }
    expect(await awsSettings(env, home)).toMatchObject({ region: 'ap-south-1', endpoint: 'http://generic:1' })
    const env2 = { ...env, AWS_REGION: 'sa-east-1', AWS_ENDPOINT_URL_S3: 'http://s3only:2' }
    expect(await awsSettings(env2, home)).toMatchObject({ region: 'sa-east-1', endpoint: 'http://s3only:2' })
  })

  it('gives a provider that reads the credentials again on each call', async () => {
    const settings = await awsSettings({}, home)
    expect(await message(settings.provider())).toMatch(/no AWS credentials/)
    await writeFile(
      credentialsFile(),
      '[default]\naws_access_key_id = ASIA1\naws_secret_access_key = s1\naws_session_token = t1\n',
    )
    expect((await settings.provider()).accessKeyId).toBe('ASIA1')
    await writeFile(
      credentialsFile(),
      '[default]\naws_access_key_id = ASIA2\naws_secret_access_key = s2\naws_session_token = t2\n',
    )
    expect((await settings.provider()).accessKeyId).toBe('ASIA2')
    expect(await s3Access(settings)).toEqual({
      kind: 's3',
      region: undefined,
      endpoint: undefined,
      credentials: { accessKeyId: 'ASIA2', secretAccessKey: 's2', sessionToken: 't2' },
    })
  })
})
