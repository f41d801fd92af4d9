// The two date formats of ECMA-119: 8.4.26.1 (volume descriptors, 17
// bytes of digits) and 9.1.5 (directory records and RRIP TF, 7 bytes).
// Times are written in UTC, so the offset byte is always 0.

/** 9.1.5: years since 1900, month, day, hour, minute, second, GMT offset. */
export function recordDate(date: Date): Buffer {
  return Buffer.from([
    date.getUTCFullYear() - 1900,
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    0,
  ]);
}

function digits(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** 8.4.26.1: "YYYYMMDDHHMMSScc" in ASCII digits, then the GMT offset byte. */
export function volumeDate(date: Date): Buffer {
  const text =
    digits(date.getUTCFullYear(), 4) +
    digits(date.getUTCMonth() + 1, 2) +
    digits(date.getUTCDate(), 2) +
    digits(date.getUTCHours(), 2) +
    digits(date.getUTCMinutes(), 2) +
    digits(date.getUTCSeconds(), 2) +
    digits(Math.floor(date.getUTCMilliseconds() / 10), 2);
  return Buffer.concat([Buffer.from(text, 'ascii'), Buffer.from([0])]);
}

/** 8.4.26.1: a date that is "not specified": sixteen '0' digits and offset 0. */
export function unspecifiedVolumeDate(): Buffer {
  return Buffer.concat([Buffer.from('0'.repeat(16), 'ascii'), Buffer.from([0])]);
}
