// The formats decode checks, as kube-openapi's strfmt registry defines them
// for the API server. Formats it does not know pass, as they do there.

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const UUID =
  /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BYTE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function realDate(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(+year, +month - 1, +day));
  return date.getUTCFullYear() === +year && date.getUTCMonth() === +month - 1 &&
    date.getUTCDate() === +day;
}

/** Whether a string is of the format (`true` for a format not checked). */
export function stringFormat(format: string, value: string): boolean {
  switch (format) {
    case "date-time": {
      const m = DATE_TIME.exec(value);
      return m !== null && realDate(m[1]!, m[2]!, m[3]!) && +m[4]! < 24 &&
        +m[5]! < 60 && +m[6]! < 61;
    }
    case "date": {
      const m = DATE.exec(value);
      return m !== null && realDate(m[1]!, m[2]!, m[3]!);
    }
    case "uuid":
      return UUID.test(value);
    case "byte":
      return BYTE.test(value);
    case "ipv4":
      return IPV4.test(value);
    default:
      return true;
  }
}

/** Whether a number fits the format (`int32`, `int64`; others pass). */
export function numberFormat(format: string, value: number): boolean {
  switch (format) {
    case "int32":
      return Number.isInteger(value) && value >= -(2 ** 31) &&
        value <= 2 ** 31 - 1;
    case "int64":
      return Number.isInteger(value) && Math.abs(value) <= 2 ** 63;
    default:
      return true;
  }
}
