import { PiiType } from '../pii/types';
import { icaoCheckDigit } from '../pii/validators';

/**
 * PII corpus: positives (texts holding the listed types) and near-miss negatives (texts that look
 * like a type but are not one). Card numbers, IBANs and check-digit ids are generated with valid
 * or deliberately broken checksums.
 */

export interface CorpusEntry {
  text: string;
  /** Types the text holds. */
  types: PiiType[];
  /** For near-misses: types the text resembles and must not be reported as. */
  notTypes?: PiiType[];
}

function luhnDigit(partial: string): string {
  let sum = 0;
  for (let i = 0; i < partial.length; i++) {
    let d = Number(partial[partial.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** A card number with a valid (or, with `broken`, an invalid) Luhn digit. */
export function card(prefix: string, length: number, broken = false): string {
  let body = prefix;
  for (let i = 0; body.length < length - 1; i++) body += String((i * 7 + 3) % 10);
  const check = luhnDigit(body);
  return body + (broken ? String((Number(check) + 1) % 10) : check);
}

function mod97(value: string): number {
  let remainder = 0;
  for (const char of value) {
    const v = /\d/.test(char) ? Number(char) : char.charCodeAt(0) - 55;
    remainder = (remainder * (v > 9 ? 100 : 10) + v) % 97;
  }
  return remainder;
}

/** An IBAN for the BBAN with correct check digits (or, with `broken`, wrong ones). */
export function iban(country: string, bban: string, broken = false): string {
  const check = 98 - mod97(`${bban}${country}00`);
  const digits = String(broken ? ((check + 1) % 97) + 2 : check).padStart(2, '0');
  return `${country}${digits}${bban}`;
}

const grouped = (value: string, size = 4, separator = ' '): string => value.match(new RegExp(`.{1,${size}}`, 'g'))?.join(separator) ?? value;

function taxId(first10: string): string {
  let product = 10;
  for (const char of first10) {
    let sum = (Number(char) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  return first10 + String((11 - product) % 10);
}

const idWithCheck = (serial: string): string => serial + String(icaoCheckDigit(serial));

const P = (text: string, ...types: PiiType[]): CorpusEntry => ({ text, types });
const N = (text: string, ...notTypes: PiiType[]): CorpusEntry => ({ text, types: [], notTypes });

export const POSITIVES: CorpusEntry[] = [
  P('OPENAI_API_KEY="sk-proj-4fJx9Qw2LmZ7rT1vB8nK3pY6cH0dS5aE-Gu2Wq7Rt9Yx1Zc4Vb6Nm8Lk0Jh3Fg5Ds7Ap9Qw1Er3Ty5Ui7Op9As1Df3Gh5Jk7Lz9Xc1Vb3Nm5"', 'openai_api_key'),
  P('my key is sk-4fJx9Qw2LmZ7rT1vB8nK3pY6cH0dS5aEGu2Wq7Rt9Yx1Zc4Vb6N', 'openai_api_key'),
  P('client = OpenAI(api_key="sk-svcacct-Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5")', 'openai_api_key'),
  P('use sk-admin-Q2w3E4r5T6y7U8i9O0pAsDfGhJkL1z2X3c4V', 'openai_api_key'),
  P('sk-ant-api03-Xy7Kq2Lm9Np4Rs8Tv1Wz6Bc3Df5Gh0Jk2Lm4Np6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op2Qr4-St6UvAA', 'anthropic_api_key'),
  P('ANTHROPIC_API_KEY=sk-ant-api03-Qm7Rt2Yp9Wc4Lx8Vn3Kb6Hd1Jf5Gs0Aq', 'anthropic_api_key'),
  P('the admin key sk-ant-admin01-Ab12Cd34Ef56Gh78Ij90Kl12Mn34', 'anthropic_api_key'),
  P('X-SVC-API-Key: svc_sk_9fK2mQ7xL4pR8tW1zB6nC3vD', 'gateway_api_key'),
  P('gateway key svc_sk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 rotated', 'gateway_api_key'),
  P('export SVC_KEY=svc_sk_Z9y8X7w6V5u4T3s2R1q0', 'gateway_api_key'),
  P('curl -H "Authorization: Bearer ya29.a0AfH6SMBx7Kq2Lm9Np4Rs8Tv1Wz6Bc3Df5"', 'bearer_token'),
  P('token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'bearer_token'),
  P('authorization: bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'bearer_token', 'github_token'),
  P('aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'cloud_access_key'),
  P('session creds ASIAY34FZKBOKMUTVV7A expire soon', 'cloud_access_key'),
  P('AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'cloud_access_key'),
  P('maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'cloud_access_key'),
  P(`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${'Ab3dEf5gHi7jKl9mNo1pQr3sTu5vWx7yZa9b'.repeat(3).slice(0, 86)}==`, 'cloud_access_key'),
  P('git remote set-url origin https://x-access-token:ghs_FAc9QeWJKY40uvSwMFLZDe1f8rESQedUStPK@github.com/o/r', 'github_token'),
  P('GH_TOKEN=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', 'github_token'),
  P('oauth token gho_KLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFR expired', 'github_token'),
  P('SLACK_BOT_TOKEN=xoxb-590139624595-7117777412154-E1SkHbn88HxjSI6bWHtP3fS2', 'slack_token'),
  P('user token: xoxp-48525388853-93363387500-47439575513-37f6a6f0fb23c6f5da2cec255404e4fb', 'slack_token'),
  P('{"refresh_token_slack": "xoxr-QL05HA064GiIjHGb3CXlMaXZjljENUhJduRHHJEY"}', 'slack_token'),
  P('SLACK_APP_TOKEN=xapp-1-A04QF6GJ2M1-5467891234567-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2', 'slack_token'),
  P('notify: https://hooks.slack.com/services/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', 'webhook_url'),
  P('Workflow trigger https://hooks.slack.com/triggers/T0123456789/5467891234567/3f7c9a2b1e4d8f6a0c5b7e9d2a4f6c81', 'webhook_url'),
  P('DISCORD_WEBHOOK=https://discord.com/api/webhooks/1187654321098765432/Kq9Zx2Lm7Np4Rs8Tv1Wz6Bc3Df5Gh0Jk2Lm4Np6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4_Ij6-Kl8', 'webhook_url'),
  P(
    'Teams: https://contoso.webhook.office.com/webhookb2/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/3e8f7a1b2c9d4e6f8a0b1c2d3e4f5a6b/9c8b7a6d-5e4f-4321-8765-4321abcdef01',
    'webhook_url',
  ),
  P('db_password: "Tr0ub4dor&3"', 'generic_secret'),
  P('login with password=hunter2', 'generic_secret'),
  P('{"client_secret": "9sK2mQ7xL4pR8tW1zB6n"}', 'generic_secret'),
  P('redis://default:Xk92hFq3Lm@cache.internal:6379', 'generic_secret'),
  P('-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA', 'generic_secret'),
  P('Authorization: Basic YWRtaW46czNjcjN0UGFzcw==', 'generic_secret'),
  P('SSN: 123-45-6789', 'ssn'),
  P('her social security number is 219 09 9998', 'ssn'),
  P('employee 078-05-1121 onboarding', 'ssn'),
  P('SSN 536228736 on file', 'ssn'),
  P('ids 001-01-0001 and 899-99-9999', 'ssn'),
  P('Contact: jane.doe@example.com', 'email'),
  P('mail ops+alerts@sub.example.co.uk for access', 'email'),
  P('<j_smith99@corp-mail.io>', 'email'),
  P('CC: "Ana" ana.garcia@empresa.es', 'email'),
  P('reply to x@y.museum', 'email'),
  P(`Visa ${grouped(card('4', 16))}`, 'credit_card'),
  P(`card=${card('4', 16)}`, 'credit_card'),
  P(`old visa ${card('4', 13)}`, 'credit_card'),
  P(`MC ${grouped(card('51', 16), 4, '-')}`, 'credit_card'),
  P(`mastercard ${card('2221', 16)}`, 'credit_card'),
  P('MC 2223 0031 2200 3222', 'credit_card'),
  P(`MC: ${grouped(card('55', 16))}`, 'credit_card'),
  P(`amex ${card('34', 15)}`, 'credit_card'),
  P(`Amex: ${(() => { const n = card('37', 15); return `${n.slice(0, 4)} ${n.slice(4, 10)} ${n.slice(10)}`; })()}`, 'credit_card'),
  P(`discover ${card('6011', 16)}`, 'credit_card'),
  P(`Discover ${grouped(card('65', 16))}`, 'credit_card'),
  P(`discover card ${card('644', 16)}`, 'credit_card'),
  P(`IBAN ${grouped(iban('DE', '370400440532013000'))}`, 'iban'),
  P(`pay to ${iban('GB', 'WEST12345698765432')}`, 'iban'),
  P(`FR: ${grouped(iban('FR', '20041010050500013M02606'))}`, 'iban'),
  P(`NL account ${iban('NL', 'ABNA0417164300')}`, 'iban'),
  P(`ES ${grouped(iban('ES', '21000418450200051332'))}`, 'iban'),
  P(`iban ${iban('IT', 'X0542811101000000123456')}`, 'iban'),
  P(`CH ${grouped(iban('CH', '00762011623852957'))}`, 'iban'),
  P(`AT ${iban('AT', '1904300234573201')} (Wien)`, 'iban'),
  P('USt-IdNr.: DE123456789', 'eu_vat_number'),
  P('VAT ATU12345678', 'eu_vat_number'),
  P('TVA intracommunautaire FR40303265045', 'eu_vat_number'),
  P('BTW NL123456789B01', 'eu_vat_number'),
  P('Partita IVA IT12345678901', 'eu_vat_number'),
  P('NIF ESB12345678', 'eu_vat_number'),
  P('VAT: BE 0123456789', 'eu_vat_number'),
  P('NIP PL1234567890', 'eu_vat_number'),
  P('moms SE123456789701', 'eu_vat_number'),
  P('VAT no. IE1234567WA', 'eu_vat_number'),
  P('Passport No: C01X00T47', 'eu_passport_number'),
  P('Reisepassnummer: CF4R8JK71', 'eu_passport_number'),
  P('numéro de passeport 12AB34567', 'eu_passport_number'),
  P('passaporto n. YA1234567', 'eu_passport_number'),
  P('pasaporte: PAA123456', 'eu_passport_number'),
  P('paspoort nummer NXC3F7R52', 'eu_passport_number'),
  P('passport number 123456789', 'eu_passport_number'),
  P('My passport is P1234567', 'eu_passport_number'),
  P('NI number: AB 12 34 56 C', 'uk_nino'),
  P('National Insurance JG103759A', 'uk_nino'),
  P('NINO CE123456D on payslip', 'uk_nino'),
  P('ni no. PR 40 12 55 B', 'uk_nino'),
  P('HMRC ref WL 98 76 54 A', 'uk_nino'),
  P(`Personalausweis: ${idWithCheck('T22000129')}`, 'de_id_number'),
  P('Ausweisnummer L01X00T47', 'de_id_number'),
  P(`ID card ${idWithCheck('LZ6311T47')}`, 'de_id_number'),
  P(`Steuer-ID: ${taxId('8609574271')}`, 'de_id_number'),
  P(`steuerliche IdNr ${taxId('5739102846').replace(/^(\d{2})(\d{3})(\d{3})(\d{3})$/, '$1 $2 $3 $4')}`, 'de_id_number'),
  P('diagnosis: E11.9 type 2 diabetes', 'icd10_code'),
  P('ICD-10 I10', 'icd10_code'),
  P('Dx J45.909, follow-up', 'icd10_code'),
  P('coded as F32.1 (moderate depressive episode)', 'icd10_code'),
  P('M54.5 low back pain', 'icd10_code'),
  P('diagnosed with C50 last year', 'icd10_code'),
  P('COVID code U07.1 confirmed', 'icd10_code'),
  P('metformin 500 mg twice daily', 'medication_dosage'),
  P('take 2 tablets every morning', 'medication_dosage'),
  P('Atorvastatin 20mg nightly', 'medication_dosage'),
  P('insulin 10 units before meals', 'medication_dosage'),
  P('prescribed sertraline 50 mg', 'medication_dosage'),
  P('amoxicillin 875mg bid for 10 days', 'medication_dosage'),
  P('lisinopril 10 mg po qd', 'medication_dosage'),
  P('salbutamol 100 mcg, 2 puffs prn', 'medication_dosage'),
];

const UUID = '123e4567-e89b-12d3-a456-426614174000';

export const NEAR_MISSES: CorpusEntry[] = [
  N(`card ${grouped(card('4', 16, true))}`, 'credit_card'),
  N(`visa ${card('4', 16, true)}`, 'credit_card'),
  N(`mc ${card('53', 16, true)}`, 'credit_card'),
  N(`amex ${card('37', 15, true)}`, 'credit_card'),
  N(`discover ${card('6011', 16, true)}`, 'credit_card'),
  N(`JCB ${card('35', 16)}`, 'credit_card'),
  N(`IBAN ${grouped(iban('DE', '370400440532013000', true))}`, 'iban'),
  N(`pay to ${iban('GB', 'WEST12345698765432', true)}`, 'iban'),
  N('IBAN DE89 3704 0044 0532 0130', 'iban'),
  N(`account XX${iban('DE', '370400440532013000').slice(2)}`, 'iban'),
  N('Order #100234987 shipped', 'credit_card', 'ssn', 'iban'),
  N('order number 4111-2222-3333 confirmed', 'credit_card', 'ssn'),
  N('invoice INV-2024-000123-77', 'credit_card', 'ssn', 'eu_vat_number'),
  N('tracking 1Z999AA10123456784', 'credit_card', 'iban'),
  N('meeting on 2024-01-15 at 10:30', 'ssn', 'credit_card', 'icd10_code'),
  N('due 15.01.2024 and 01/15/2024', 'ssn', 'credit_card', 'icd10_code'),
  N('timestamp 2024-01-15T10:30:00Z', 'ssn', 'credit_card'),
  N('call +1 (555) 123-4567', 'ssn', 'credit_card'),
  N('phone 555-123-4567', 'ssn', 'credit_card'),
  N('UK office +44 20 7946 0958', 'ssn', 'credit_card', 'uk_nino'),
  N('mobile +49 151 23456789', 'credit_card', 'iban'),
  N('fax 0049 30 1234567890', 'credit_card', 'iban'),
  N('release v1.2.3 and 2.10.3', 'icd10_code', 'email'),
  N('upgrade to V10.2.1 today', 'icd10_code'),
  N('node 20.19.0, python 3.12.4', 'icd10_code'),
  N('pkg@1.2.3 and @scope/pkg@4.5.6', 'email'),
  N(`request id ${UUID}`, 'ssn', 'credit_card', 'icd10_code', 'cloud_access_key'),
  N(`ID ${UUID.toUpperCase()}`, 'ssn', 'credit_card', 'icd10_code', 'cloud_access_key'),
  N('sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'openai_api_key', 'credit_card'),
  N('commit 9fceb02d0ae598e95dc970b74767f19372d61af8', 'openai_api_key', 'credit_card'),
  N('set OPENAI_API_KEY=sk-... in your shell', 'openai_api_key', 'generic_secret'),
  N('api_key: <API_KEY>', 'generic_secret'),
  N('Authorization: Bearer <ACCESS_TOKEN>', 'bearer_token'),
  N('use svc_sk_xxxxxxxxxxxxxxxxxxxx as the key', 'gateway_api_key'),
  N('sk-learn-compatible-estimators-api', 'openai_api_key'),
  N('the bearer of this letter', 'bearer_token'),
  N('password: required', 'generic_secret'),
  N('password: Hidden', 'generic_secret'),
  N('GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'github_token'),
  N('ghp_ tokens are 40 characters: ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8', 'github_token'),
  N('SLACK_TOKEN=xoxb-your-bot-token-here', 'slack_token'),
  N('xoxb-0000000000-0000000000-xxxxxxxxxxxxxxxxxxxxxxxx', 'slack_token'),
  N('SLACK_APP_TOKEN=xapp-your-app-token', 'slack_token'),
  N('https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'webhook_url'),
  N('POST to https://discord.com/api/webhooks/{webhook.id}/{webhook.token}', 'webhook_url'),
  N('https://prod-27.westus.logic.azure.com/workflows/0a1b2c3d4e5f60718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=2016-06-01', 'webhook_url'),
  N('https://example.com/search?q=test&token=abc&session_id=123', 'generic_secret'),
  N('const user = { token: accessToken, password: newPassword };', 'generic_secret'),
  N('password: getPassword()', 'generic_secret'),
  N('aws_access_key_id = AKIAXXXXXXXXXXXXXXXX', 'cloud_access_key'),
  N('ssh://git@gitlab.com/group/project.git', 'email'),
  N(`mc ${card('2220', 16)} and ${card('2721', 16)}`, 'credit_card'),
  N('password = ${DB_PASSWORD}', 'generic_secret'),
  N('token = config.auth.token', 'generic_secret'),
  N('postgres://user:password@localhost:5432/db', 'generic_secret', 'email'),
  N('max_tokens: 4096', 'generic_secret'),
  N('000-12-3456', 'ssn'),
  N('666-45-6789', 'ssn'),
  N('912-34-5678', 'ssn'),
  N('123-00-4567', 'ssn'),
  N('123-45-0000', 'ssn'),
  N('ZIP 12345-6789', 'ssn'),
  N('user@localhost', 'email'),
  N('ping @username now', 'email'),
  N('name@domain', 'email'),
  N('foo@bar.c', 'email'),
  N('QQ123456C', 'uk_nino'),
  N('BG 12 34 56 A', 'uk_nino'),
  N('AB123456E', 'uk_nino'),
  N('DE12345678', 'eu_vat_number'),
  N('ATU1234567', 'eu_vat_number'),
  N('FR1234', 'eu_vat_number'),
  N('DE1234567890', 'eu_vat_number'),
  N('passport photo size 35x45 mm', 'eu_passport_number'),
  N('passport expires 2030-05-01', 'eu_passport_number'),
  N('ID card reader model 5000', 'de_id_number'),
  N('Personalausweis beantragen', 'de_id_number'),
  N(`Steuer-ID: ${taxId('8609574271').slice(0, 10)}${(Number(taxId('8609574271')[10]) + 1) % 10}`, 'de_id_number'),
  N('print on A4 paper', 'icd10_code'),
  N('vitamin B12 supplements', 'icd10_code'),
  N('F16 fighter jets', 'icd10_code'),
  N('see section 4.2.1', 'icd10_code'),
  N('add 100 g of flour and 500 ml of milk', 'medication_dosage'),
  N('we sold 12 units last week', 'medication_dosage'),
  N('drink 500 ml of water', 'medication_dosage'),
  N('download the 20 MB file', 'medication_dosage'),
];

/** Everyday text with no PII and no particular near-miss: any report here counts against precision. */
export const BACKGROUND: CorpusEntry[] = [
  'See table A12.3 in the appendix for the full results.',
  'The concentration was 3.5 mg/L in the second sample.',
  'const token = await getToken(); if (!token) throw new Error("no token");',
  'Flight LH1234 departs at 10:00 from gate B22.',
  'SKU AB-1234-5678 is back in stock.',
  'git clone git@github.com:org/repo.git',
  '2024-01-15 10:30:00 INFO request_id=9f8e7d6c5b4a took 123ms status=200',
  'Model gpt-4o-2024-08-06 costs $2.50 per 1M input tokens.',
  'ISBN 978-3-16-148410-0, 3rd edition, page 412.',
  'Listening on 192.168.1.1 port 8080, pid 48213.',
  'The quarterly revenue grew 12% to EUR 4,512,300 while costs fell.',
  'Use the password reset link we emailed you; it expires in 24 hours.',
  'Docker image sha256:3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e',
  'Run `export API_BASE=https://api.example.com/v1` before starting.',
  'Dose-response curves were fitted for 10, 20 and 40 mg/kg in mice.',
  'git clone git@github.com:org/repo.git && cd repo && npm ci',
  'def connect(password: str = get_password(), api_key: Optional[str] = None) -> Client:',
  'const headers = { Authorization: `Bearer ${token}` }; const body = { token: refreshToken, secret: clientSecret };',
  'fetch("https://api.example.com/items?sort=desc&token=abc&page=2&per_page=50")',
  '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
  'id 550e8400-e29b-41d4-a716-446655440000 at 2024-03-15T14:30:00.123Z, version 4.17.21, sha 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'See https://api.slack.com/messaging/webhooks to create a webhook, then set SLACK_WEBHOOK_URL.',
].map((text) => ({ text, types: [] }));
