"""MTurk (the 2017-01-17 Requester API, through boto3): its adapter, batch steps, operations and fees."""
