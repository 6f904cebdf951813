import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiError } from '../http/api-error.js';
import type { Principal } from './principal.js';
import { PRINCIPAL_RESOLVER, type PrincipalResolver } from './principal-resolver.js';

/** passport-http-bearer: the token from `Authorization: Bearer …` resolved to a Principal. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(@Inject(PRINCIPAL_RESOLVER) private readonly keys: PrincipalResolver) {
    super();
  }

  async validate(token: string): Promise<Principal> {
    const principal = await this.keys.resolve(token);
    if (!principal) throw ApiError.unauthenticated('The API key is unknown, malformed, expired or revoked');
    return principal;
  }
}
