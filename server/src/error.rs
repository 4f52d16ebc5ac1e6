//! The API's error answer: an HTTP status with tabula_api's JSON error body.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::time::Duration;
use tabula_api::Error;

/// An error answer: `status` with `{"error":{"kind":…,"message":…}}`, and a `Retry-After`
/// header when the server is busy.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    error: Error,
    retry_after: Option<u64>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, error: Error) -> ApiError {
        ApiError {
            status,
            error,
            retry_after: None,
        }
    }

    /// 400: the input is wrong (the message names the field).
    pub(crate) fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, Error::bad_input(message))
    }

    /// 503 with `Retry-After`: every search slot is taken.
    pub(crate) fn busy(max: usize, retry_after_s: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after_s.max(1)),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                Error::interrupted(format!(
                    "busy: {max} searches are running (the most at once); retry later"
                )),
            )
        }
    }

    /// 503: the request ran past the server's request timeout.
    pub(crate) fn timeout(limit: Duration) -> ApiError {
        ApiError {
            retry_after: Some(1),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                Error::interrupted(format!(
                    "the request took longer than the server's limit of {} s",
                    limit.as_secs_f64()
                )),
            )
        }
    }

    /// 404.
    pub(crate) fn not_found() -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            Error::bad_input("no such endpoint (see /openapi.json)"),
        )
    }

    /// 405: the endpoint exists but not with this method.
    pub(crate) fn method_not_allowed(method: &str) -> ApiError {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            Error::bad_input(format!(
                "method {method} is not allowed on this endpoint (see /openapi.json)"
            )),
        )
    }

    /// 500: a failure of the server itself, never of the input.
    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Error::internal(message))
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.error.to_json())).into_response();
        if let Some(s) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        response
    }
}
