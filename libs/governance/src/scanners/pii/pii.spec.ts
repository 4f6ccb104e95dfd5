import { describePiiFindings, detectPii, scanPii } from './scan-pii';
import { PII_TYPES, PiiType } from './types';
import { cardNetwork, germanTaxIdValid, ibanValid, icaoCheckDigit, luhnValid, ninoPrefixValid, ssnValid } from './validators';

const typesIn = (text: string): PiiType[] => detectPii(text).map((found) => found.type);

describe('validators', () => {
  it('checks Luhn and card networks', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(cardNetwork('4111111111111111')).toBe('visa');
    expect(cardNetwork('5500000000000004')).toBe('mastercard');
    expect(cardNetwork('2221000000000009')).toBe('mastercard');
    expect(cardNetwork('2223003122003222')).toBe('mastercard');
    expect(luhnValid('2223003122003222')).toBe(true);
    expect(cardNetwork('2720990000000007')).toBe('mastercard');
    expect(cardNetwork('2220990000000002')).toBeNull();
    expect(cardNetwork('2721000000000004')).toBeNull();
    expect(cardNetwork('378282246310005')).toBe('amex');
    expect(cardNetwork('6011111111111117')).toBe('discover');
    expect(cardNetwork('6221260000000000')).toBe('discover');
    expect(cardNetwork('3530111333300000')).toBeNull();
    expect(cardNetwork('411111111111')).toBeNull();
  });

  it('checks IBAN lengths, check digits and mod 97', () => {
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(ibanValid('DE8937040044053201300')).toBe(false);
    expect(ibanValid('XX89370400440532013000')).toBe(false);
  });

  it('checks SSN ranges', () => {
    expect(ssnValid('123', '45', '6789')).toBe(true);
    expect(ssnValid('000', '45', '6789')).toBe(false);
    expect(ssnValid('666', '45', '6789')).toBe(false);
    expect(ssnValid('900', '45', '6789')).toBe(false);
    expect(ssnValid('123', '00', '6789')).toBe(false);
    expect(ssnValid('123', '45', '0000')).toBe(false);
  });

  it('checks NINO prefixes, ICAO and tax-id check digits', () => {
    expect(ninoPrefixValid('AB')).toBe(true);
    for (const prefix of ['DA', 'AD', 'QQ', 'AO', 'BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ']) expect(ninoPrefixValid(prefix)).toBe(false);
    expect(icaoCheckDigit('T22000129')).toBe(3);
    expect(germanTaxIdValid('86095742719')).toBe(true);
    expect(germanTaxIdValid('86095742718')).toBe(false);
  });
});

describe('detectPii', () => {
  it.each<[PiiType, string]>([
    ['openai_api_key', 'key: sk-proj-Abc123def456GHI789jkl012MNO345pqr678STU901vwx'],
    ['anthropic_api_key', 'sk-ant-api03-Xy7Kq2Lm9Np4Rs8Tv1Wz6Bc3Df5Gh0Jk2Lm4Np6Qr8St0Uv2Wx4Yz6AbAA'],
    ['gateway_api_key', 'svc_sk_9fK2mQ7xL4pR8tW1zB6nC3vD'],
    ['bearer_token', 'Authorization: Bearer ya29.a0AfH6SMBx7Kq2Lm9Np4Rs8Tv1Wz6Bc3Df5'],
    ['bearer_token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['cloud_access_key', 'AKIAIOSFODNN7EXAMPLE'],
    ['cloud_access_key', 'temporary ASIAY34FZKBOKMUTVV7A'],
    ['cloud_access_key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['generic_secret', 'api_key=Zx9fK2mQ7xL4pR8t'],
    ['generic_secret', '{"password": "Hunter2024!"}'],
    ['generic_secret', 'postgres://admin:S3cretPw@db.internal:5432/app'],
    ['generic_secret', '-----BEGIN OPENSSH PRIVATE KEY-----'],
    ['generic_secret', 'password=hunter2'],
    ['generic_secret', 'my password: S3cr3t!'],
    ['generic_secret', 'PASSWORD: "Tr0ub4dor&3"'],
    ['generic_secret', 'db_passwd=abc123'],
    ['github_token', 'token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d'],
    ['github_token', 'GITHUB_TOKEN=gho_KLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFR'],
    ['github_token', '"ghu_IBXuDL7DxtpYlSXpfKtHF4vUCsMehGAkWvj7"'],
    ['github_token', 'installation ghs_FAc9QeWJKY40uvSwMFLZDe1f8rESQedUStPK'],
    ['github_token', 'refresh: ghr_R0CsTy4Qwb8DwkNhFdnXsiVpzz63FfkCzJr4'],
    ['github_token', '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'],
    ['slack_token', 'SLACK_BOT_TOKEN=xoxb-590139624595-7117777412154-E1SkHbn88HxjSI6bWHtP3fS2'],
    ['slack_token', 'xoxp-48525388853-93363387500-47439575513-37f6a6f0fb23c6f5da2cec255404e4fb'],
    ['slack_token', 'legacy xoxa-2-jJJibaZUPgHV7iB3m03nbqnsGpWLuqIA1id6Vw5D'],
    ['slack_token', 'xoxr-QL05HA064GiIjHGb3CXlMaXZjljENUhJduRHHJEY'],
    ['slack_token', 'session xoxs-18033401878-bW56eCuNGMGmSrCGIZEG8pSH4487q7'],
    ['slack_token', 'SLACK_APP_TOKEN=xapp-1-A0123456789-1234567890123-3f7c9a2b1e4d8f6a0c5b7e9d2a4f6c813f7c9a2b1e4d8f6a0c5b7e9d2a4f6c81'],
    ['slack_token', '"xapp-1-A04QF6GJ2M1-5467891234567-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"'],
    ['slack_token', 'refresh xoxe-1-My0xLTEyMzQ1Njc4OTAxMi0xMjM0NTY3ODkwMTIzLTM0NTY3ODkwMTIzNDU2'],
    ['slack_token', 'rotated xoxe.xoxb-1-MS0yLTEyMzQ1Njc4OTAxMi0xMjM0NTY3ODkwMTIz'],
    ['webhook_url', 'SLACK_WEBHOOK_URL=https://hooks.slack.com/services/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'],
    ['webhook_url', 'curl -d @msg.json https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijKLMNOPqrst1234'],
    ['webhook_url', 'https://hooks.slack.com/triggers/T0123456789/5467891234567/3f7c9a2b1e4d8f6a0c5b7e9d2a4f6c81'],
    ['webhook_url', 'https://hooks.slack.com/triggers/E012AB3CD4E/1234567890123/8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c4d'],
    ['webhook_url', 'https://hooks.slack.com/workflows/T01234567/A0123456789/412345678901234567/Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2'],
    ['webhook_url', 'https://discord.com/api/webhooks/1187654321098765432/Kq9Zx2Lm7Np4Rs8Tv1Wz6Bc3Df5Gh0Jk2Lm4Np6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4_Ij6-Kl8'],
    ['webhook_url', 'https://discordapp.com/api/v10/webhooks/876543210987654321/aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5kL7nP9rT1vX3zA5cE7gI9kM1oQ3sU5wY7'],
    [
      'webhook_url',
      'https://contoso.webhook.office.com/webhookb2/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/3e8f7a1b2c9d4e6f8a0b1c2d3e4f5a6b/9c8b7a6d-5e4f-4321-8765-4321abcdef01/V2xyz',
    ],
    ['webhook_url', 'https://outlook.office.com/webhook/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/3e8f7a1b2c9d4e6f8a0b1c2d3e4f5a6b/9c8b7a6d-5e4f-4321-8765-4321abcdef01'],
    [
      'webhook_url',
      'https://prod-27.westus.logic.azure.com:443/workflows/0a1b2c3d4e5f60718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=Xk3pQ9mZ2vL7nR4tY8wB1cD6fG0hJ5kM3sN8aE2uI9o',
    ],
    [
      'webhook_url',
      'https://default1234.56.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/0a1b2c3d4e5f60718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=1&sv=1.0&sig=Xk3pQ9mZ2vL7nR4tY8wB1cD6fG0hJ5kM3sN8aE2uI9o',
    ],
    ['webhook_url', 'https://chat.googleapis.com/v1/spaces/AAAA1bCdEfG/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=sNTM1S_2d6QwG3aG1hm2k5ChSl6qX3PH7ZQgEw9Wlg8%3D'],
    ['generic_secret', 'https://example.com/reset?token=5f2b9c1e8a7d4f3b&email=x'],
    ['generic_secret', 'password: MyPassword2024'],
    ['cloud_access_key', 'X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1'],
    ['email', 'mail git@github.com or jane@example.com: both work'],
    ['credit_card', 'mastercard 2223003122003222'],
    ['credit_card', 'MC 2720 9900 0000 0007'],
    ['ssn', 'SSN 123-45-6789'],
    ['ssn', 'social security number: 123 45 6789'],
    ['email', 'write to jane.doe+news@example.co.uk today'],
    ['credit_card', '4111 1111 1111 1111'],
    ['credit_card', 'amex 3782 822463 10005'],
    ['iban', 'DE89 3704 0044 0532 0130 00'],
    ['eu_vat_number', 'USt-IdNr. DE123456789'],
    ['eu_passport_number', 'Passport No: C01X00T47'],
    ['uk_nino', 'NI number AB 12 34 56 C'],
    ['de_id_number', 'Personalausweis: T220001293'],
    ['icd10_code', 'diagnosis E11.9'],
    ['medication_dosage', 'metformin 500 mg twice daily'],
  ])('finds %s in %p', (type, text) => {
    expect(typesIn(text)).toContain(type);
  });

  it.each<[PiiType, string]>([
    ['openai_api_key', 'use sk-... as a placeholder, or sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['openai_api_key', 'the task-abcdefghijklmnopqrstuvwxyz012345 id'],
    ['generic_secret', 'password: required'],
    ['generic_secret', 'password: Hidden'],
    ['generic_secret', 'password=abc12'],
    ['generic_secret', 'password: secret1 and pwd: /home/me'],
    ['generic_secret', 'the password is hunter2 (no assignment)'],
    ['github_token', 'ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8 (35 characters)'],
    ['github_token', 'ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dX (37 characters)'],
    ['github_token', 'ghx_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d and xghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d'],
    ['github_token', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['github_token', 'github_pat_ prefixed tokens, and github_pat_i0B3JrTAwR4y9ojfljoQoa_F1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkh'],
    ['slack_token', 'SLACK_BOT_TOKEN=xoxb-your-bot-token-here'],
    ['slack_token', 'xoxb-0000000000-0000000000-xxxxxxxxxxxxxxxxxxxxxxxx'],
    ['slack_token', 'xoxb-12345678 and xoxz-590139624595-7117777412154-E1SkHbn88HxjSI6bWHtP3fS2'],
    ['credit_card', 'not a card: 2220 9900 0000 0002 or 2721 0000 0000 0004'],
    ['slack_token', 'SLACK_APP_TOKEN=xapp-your-app-token, xapp-1-xxxxxxxxxx and xapp-1-A0123456789-1234567890123-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['webhook_url', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
    ['webhook_url', 'https://hooks.slack.com/services/YOUR/WEBHOOK/URL and https://hooks.slack.com/services/...'],
    ['webhook_url', 'https://hooks.slack.com/triggers/T0123456789/xxxx/yyyy and https://hooks.slack.com/services/T0123ABCD/B0456EFGH/short1234'],
    ['webhook_url', 'https://discord.com/api/webhooks/{webhook.id}/{webhook.token} and https://discord.com/api/webhooks/123456789012345678/your-webhook-token'],
    ['webhook_url', 'https://discord.com/channels/123456789012345678/987654321098765432'],
    ['webhook_url', 'https://outlook.office.com/webhook/00000000-0000-0000-0000-000000000000@00000000-0000-0000-0000-000000000000/IncomingWebhook/00000000000000000000000000000000/00000000-0000-0000-0000-000000000000'],
    ['webhook_url', 'https://prod-27.westus.logic.azure.com:443/workflows/0a1b2c3d4e5f60718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=2016-06-01&sig=<signature>'],
    ['webhook_url', 'https://prod-27.westus.logic.azure.com/workflows/0a1b2c3d4e5f60718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=2016-06-01 sig=Xk3pQ9mZ2vL7nR4tY8wB1cD6fG0hJ5kM3sN8aE2uI9o'],
    ['webhook_url', 'https://github.com/org/repo/actions/workflows/ci.yml and https://chat.googleapis.com/v1/spaces/SPACE_ID/messages?key=KEY&token=TOKEN'],
    // Ordinary developer text.
    ['generic_secret', 'https://example.com/search?q=test&token=abc&session_id=123 and ?access_token=abcd&expires=3600'],
    ['generic_secret', 'password: getPassword() and api_key: Optional[str] = None'],
    ['generic_secret', 'const user = { token: accessToken, password: newPassword, secret: clientSecret, apiKey: apiKey, authToken: AuthToken };'],
    ['cloud_access_key', 'aws_access_key_id = AKIAXXXXXXXXXXXXXXXX # or AKIA0000000000000000'],
    ['email', 'git clone git@github.com:org/repo.git'],
    ['email', 'git clone ssh://git@gitlab.com/group/project.git'],
    ['generic_secret', 'password=${DB_PASSWORD}'],
    ['generic_secret', 'api_key = os.environ.API_KEY'],
    ['generic_secret', 'postgres://user:password@localhost/db'],
    ['ssn', '078-05-112 and 000-12-3456 and 123-45-0000'],
    ['ssn', 'call 555-123-4567'],
    ['email', 'user@localhost and pkg@1.2.3 and @mention'],
    ['credit_card', '4111 1111 1111 1112'],
    ['credit_card', '1234 5678 9012 3456'],
    ['iban', 'DE89 3704 0044 0532 0130 01'],
    ['eu_vat_number', 'DE12345678'],
    ['uk_nino', 'QQ 12 34 56 C'],
    ['icd10_code', 'release V10.2.1 and node 20.19.0'],
    ['medication_dosage', 'add 100 g of flour and 500 ml of milk'],
  ])('does not report %s in %p', (type, text) => {
    expect(typesIn(text)).not.toContain(type);
  });

  it('counts matches without returning them', () => {
    expect(detectPii('a@example.com, b@example.com, c@example.org')).toEqual([{ type: 'email', count: 3 }]);
  });
});

describe('scanPii', () => {
  const texts = [
    { path: 'messages[0].content', text: 'My card is 4111 1111 1111 1111, mail me at jane@example.com' },
    { path: 'messages[1].content', text: 'nothing here' },
  ];

  it('blocks CRITICAL and HIGH with pii_action block and flags MEDIUM', () => {
    const result = scanPii(texts, { action: 'block' });
    expect(result.decision).toBe('block');
    expect(result.blocking).toEqual([{ type: 'credit_card', category: 'financial', severity: 'CRITICAL', path: 'messages[0].content', count: 1 }]);
    expect(result.findings.map((f) => f.type)).toEqual(['email', 'credit_card']);
    expect(describePiiFindings(result.blocking)).toBe('credit_card in messages[0].content');
  });

  it('only flags MEDIUM findings under block', () => {
    const result = scanPii([{ path: 'system', text: 'contact: ops@example.com, VAT DE123456789' }], { action: 'block' });
    expect(result).toEqual({
      decision: 'flag',
      blocking: [],
      warning: true,
      findings: [
        { type: 'email', category: 'personal_identifiers', severity: 'MEDIUM', path: 'system', count: 1 },
        { type: 'eu_vat_number', category: 'eu_compliance', severity: 'MEDIUM', path: 'system', count: 1 },
      ],
    });
  });

  it('never blocks with flag, and allows with a warning with allow', () => {
    expect(scanPii(texts, { action: 'flag' })).toMatchObject({ decision: 'flag', blocking: [], warning: true });
    expect(scanPii(texts, { action: 'allow' })).toMatchObject({ decision: 'allow', blocking: [], warning: true });
    expect(scanPii([{ path: 'input', text: 'clean' }], { action: 'block' })).toEqual({ decision: 'allow', findings: [], blocking: [], warning: false });
  });

  it('blocks credentials as HIGH and can be limited to some types', () => {
    const secret = [{ path: 'input', text: 'token: sk-proj-Abc123def456GHI789jkl012MNO345pqr678STU901vwx' }];
    expect(scanPii(secret, { action: 'block' }).blocking.map((f) => [f.type, f.severity])).toContainEqual(['openai_api_key', 'HIGH']);
    expect(scanPii(secret, { action: 'block', types: ['email'] }).decision).toBe('allow');
  });

  it('never puts a matched value into its result', () => {
    const values = ['4111 1111 1111 1111', 'jane@example.com', 'sk-proj-Abc123def456GHI789jkl012MNO345pqr678STU901vwx', '123-45-6789'];
    const result = scanPii([{ path: 'p', text: values.join(' ; ') }], { action: 'block' });
    const serialized = JSON.stringify(result);
    expect(result.findings.length).toBe(4);
    for (const value of values) expect(serialized).not.toContain(value);
  });

  it('has a category and a severity for every type', () => {
    for (const info of Object.values(PII_TYPES)) {
      expect(['credentials', 'personal_identifiers', 'financial', 'eu_compliance', 'health']).toContain(info.category);
      expect(['CRITICAL', 'HIGH', 'MEDIUM']).toContain(info.severity);
    }
    expect(PII_TYPES.uk_nino.severity).toBe('CRITICAL');
    expect(PII_TYPES.email.severity).toBe('MEDIUM');
    expect(PII_TYPES.github_token).toEqual({ category: 'credentials', severity: 'HIGH' });
    expect(PII_TYPES.slack_token).toEqual({ category: 'credentials', severity: 'HIGH' });
    expect(PII_TYPES.webhook_url).toEqual({ category: 'credentials', severity: 'HIGH' });
  });
});
