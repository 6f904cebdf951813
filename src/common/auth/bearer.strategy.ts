import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiKeyAuthService } from '../../modules/api-keys/api-key-auth.service.js';
import { ApiError } from '../http/api-error.js';
import type { Principal } from './principal.js';

/** passport-http-bearer: the token from `Authorization: Bearer …` resolved to a Principal. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly keys: ApiKeyAuthService) {
    super();
  }

  async validate(token: string): Promise<Principal> {
    const principal = await this.keys.resolve(token);
    if (!principal) throw ApiError.unauthenticated('The API key is unknown, malformed, expired or revoked');
    return principal;
  }
}
