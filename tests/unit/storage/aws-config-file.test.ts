import { describe, expect, it } from 'vitest'
import { parseAwsIni, profileNames, profileSettings } from '../../../src/storage/aws-config-file.ts'

describe('parseAwsIni', () => {
  it('reads sections and settings, trimming whitespace and lowercasing keys', () => {
    const text =
      '[default]\n  aws_access_key_id=AKIAEXAMPLE  \n\tAWS_Secret_Access_Key =  wJalr/K7+EXAMPLE\n\n[ other ]\nregion = eu-west-1\n'
    expect(parseAwsIni(text, 'f')).toEqual({
      default: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'wJalr/K7+EXAMPLE' },
      other: { region: 'eu-west-1' },
    })
  })

  it('skips whole-line and trailing comments, keeping # and ; inside values', () => {
    const text = [
      '# a comment',
      '; another',
      '   # an indented one',
      '[default] # the default profile',
      'aws_access_key_id = AKIA#1 ; trailing comment',
      'endpoint_url = http://127.0.0.1:9000/#frag\t# why: local test server',
      'aws_session_token = IQoJb3JpZ2luX2VjE/x+y==',
    ].join('\r\n')
    expect(parseAwsIni(text, 'f').default).toEqual({
      aws_access_key_id: 'AKIA#1',
      endpoint_url: 'http://127.0.0.1:9000/#frag',
      aws_session_token: 'IQoJb3JpZ2luX2VjE/x+y==',
    })
  })

  it('splits at the first delimiter, so values may hold = and :', () => {
    const s = parseAwsIni('[p]\nrole_arn: arn:aws:iam::123:role/x\ntoken = a=b:c==\n', 'f')
    expect(s.p).toEqual({ role_arn: 'arn:aws:iam::123:role/x', token: 'a=b:c==' })
  })

  it('reads sub-sections of indented settings', () => {
    const text =
      '[profile dev]\nregion = us-west-2\ns3 =\n  endpoint_url = http://localhost:9000\n  addressing_style = path\noutput = json\n'
    expect(parseAwsIni(text, 'f')['profile dev']).toEqual({
      region: 'us-west-2',
      's3.endpoint_url': 'http://localhost:9000',
      's3.addressing_style': 'path',
      output: 'json',
    })
  })

  it('lets later values and repeated sections override earlier ones', () => {
    const s = parseAwsIni('[a]\nx = 1\ny = 1\n[b]\nx = 2\n[a]\nx = 3\n', 'f')
    expect(s).toEqual({ a: { x: '3', y: '1' }, b: { x: '2' } })
  })

  it('handles a byte-order mark, old Mac line ends and a missing final newline', () => {
    expect(parseAwsIni('\uFEFF[a]\rx = 1\ry = 2', 'f')).toEqual({ a: { x: '1', y: '2' } })
    expect(parseAwsIni('', 'f')).toEqual({})
  })

  it('names the file and line of what it cannot read, without quoting the line', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
    expect(() => parseAwsIni(`[default]\naws_access_key_id = AKIA\n${secret}\n`, '/home/u/.aws/credentials')).toThrow(
      new Error("/home/u/.aws/credentials:3: expected '[section]' or 'key = value'"),
    )
    expect(() => parseAwsIni(`aws_secret_access_key = ${secret}\n[default]\n`, 'creds')).toThrow(
      new Error("creds:1: setting 'aws_secret_access_key' comes before any [section]"),
    )
    expect(() => parseAwsIni('[ ]\n', 'c')).toThrow(/c:1: empty section name/)
    expect(() => parseAwsIni('[a]\n= value\n', 'c')).toThrow(/c:2:/)
  })

  it('is not fooled by section names like __proto__', () => {
    const s = parseAwsIni('[__proto__]\nx = 1\n', 'f')
    expect(Object.entries(s)).toEqual([['__proto__', { x: '1' }]])
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })
})

describe('profileSettings', () => {
  const config = parseAwsIni(
    '[default]\nregion = us-east-2\n[profile dev]\nregion = eu-west-1\n[sso-session s]\nx = 1\n',
    'c',
  )
  const creds = parseAwsIni('[default]\na = 1\n[dev]\na = 2\n', 'k')

  it('finds [name] in the credentials file and [profile name] in the config file', () => {
    expect(profileSettings(creds, 'dev', 'credentials')).toEqual({ a: '2' })
    expect(profileSettings(config, 'dev', 'config')).toEqual({ region: 'eu-west-1' })
    expect(profileSettings(config, 'default', 'config')).toEqual({ region: 'us-east-2' })
    expect(profileSettings(parseAwsIni('[profile default]\nregion = r\n', 'c'), 'default', 'config')).toEqual({
      region: 'r',
    })
    expect(profileSettings(config, 'nope', 'config')).toBeUndefined()
  })

  it('lists the profiles a file defines', () => {
    expect(profileNames(config, 'config')).toEqual(['default', 'dev'])
    expect(profileNames(creds, 'credentials')).toEqual(['default', 'dev'])
  })
})
