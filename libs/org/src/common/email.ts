import { isEmail, ValidateBy } from 'class-validator';

/** A UTF-16 surrogate without its pair: text no UTF-8 encoder can write as it was sent. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * class-validator's `@IsEmail()`, refusing what it cannot check: its byte-length step calls
 * `encodeURI`, which throws `URIError` on a lone surrogate (`"\ud800"` in the JSON body), so that
 * e-mail answered 500 instead of 400 `email must be an email`. Same constraint name and message.
 */
export function IsEmailAddress(): PropertyDecorator {
  return ValidateBy({
    name: 'isEmail',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !LONE_SURROGATE.test(value) && isEmail(value),
      defaultMessage: () => '$property must be an email',
    },
  });
}
